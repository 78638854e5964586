package io.readpast.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The completion-webhook outbox: deliveries are written with the job's change, sent from here. */
public interface WebhookStore {

    /**
     * Leases up to {@code limit} due deliveries (PENDING and due, or SENDING with an expired
     * lease) for {@code leaseSeconds}, counting an attempt; rows other senders hold are skipped.
     */
    List<WebhookRow> webhookClaim(int limit, int leaseSeconds);

    /** DELIVERED, if the lease is still held; false when another sender took it over. */
    boolean webhookDelivered(long seq, String leaseId, int statusCode);

    /**
     * PENDING again after the failure's delay, or DEAD: when the next attempt is due (database
     * clock); empty when the lease is no longer held.
     */
    Optional<Instant> webhookFailed(WebhookFailure failure);

    /** Deliveries newest first, of one status (null: all), before sequence {@code after} (null: from the newest). */
    List<WebhookRow> webhookList(Integer status, Long after, int limit);

    Optional<WebhookRow> webhookGet(String deliveryId);

    /** A DEAD delivery back to PENDING, due now, attempts from zero; empty when there is no DEAD one with that id. */
    Optional<WebhookRow> webhookRetry(String deliveryId);
}
