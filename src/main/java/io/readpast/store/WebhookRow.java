package io.readpast.store;

import java.time.Instant;

/**
 * One webhook delivery (a row of the outbox): the job and event it reports, where to POST it,
 * and how its sending stands. {@code status}: 0 PENDING, 1 SENDING, 2 DELIVERED, 3 DEAD;
 * {@code dueAt} is the next attempt (PENDING) or the sender's lease expiry (SENDING).
 */
public record WebhookRow(
        long seq,
        String deliveryId,
        long jobId,
        String queue,
        String event,
        String url,
        int status,
        int attempt,
        Instant dueAt,
        String leaseId,
        Integer lastStatus,
        String lastError,
        Instant createdAt,
        Instant updatedAt,
        Instant deliveredAt) {

    public static final int PENDING = 0;
    public static final int SENDING = 1;
    public static final int DELIVERED = 2;
    public static final int DEAD = 3;
}
