package io.readpast.api;

import io.readpast.store.QueueRow;

import java.time.Instant;
import java.util.List;

/** Response bodies other than {@link JobView}. */
public final class Responses {

    private Responses() {
    }

    public record Claimed(List<JobView> jobs) {
    }

    public record HeartbeatAck(String id, String status, Instant leaseExpiresAt, boolean cancelRequested) {
    }

    public record QueueView(String name, Integer maxWorkers, boolean paused, boolean active, Integer leaseSeconds,
                            Integer maxAttempts, Long backoffBaseSeconds, Long backoffCapSeconds,
                            Long pending, Long scheduled, Long leased, Long processing, Long dead,
                            Double lagSeconds, Instant createdAt, Instant updatedAt) {

        static QueueView of(QueueRow q, Instant now) {
            QueueRow.Counts c = q.counts();
            Double lag = c == null || c.oldestDueAt() == null ? null
                    : Math.max(0, now.toEpochMilli() - c.oldestDueAt().toEpochMilli()) / 1000.0;
            return new QueueView(q.name(), q.maxWorkers(), q.paused(), q.active(), q.leaseSeconds(), q.maxAttempts(),
                    q.backoffBaseMs() == null ? null : q.backoffBaseMs() / 1000,
                    q.backoffCapMs() == null ? null : q.backoffCapMs() / 1000,
                    c == null ? null : c.pending(), c == null ? null : c.scheduled(),
                    c == null ? null : c.leased(), c == null ? null : c.processing(), c == null ? null : c.dead(),
                    lag, q.createdAt(), q.updatedAt());
        }
    }
}
