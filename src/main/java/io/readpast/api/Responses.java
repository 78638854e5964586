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

    /** One answer of a batch: {@code status} as HTTP would give it, and the job or the problem. */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record ItemResult(int index, String id, int status, JobView job, Problem error) {
    }

    public record BatchResult(int succeeded, int failed, List<ItemResult> results) {
        static BatchResult of(List<ItemResult> results) {
            int ok = (int) results.stream().filter(r -> r.status() < 300).count();
            return new BatchResult(ok, results.size() - ok, results);
        }
    }

    /** A page of jobs, newest first; {@code next} is the cursor for the following page (null at the end). */
    public record Page(List<JobView> jobs, String next) {
    }

    public record QueueList(List<QueueView> queues) {
    }

    public record HeartbeatAck(String id, String status, Instant leaseExpiresAt, boolean cancelRequested) {
    }

    public record QueueView(String name, Integer maxWorkers, boolean paused, boolean active, Integer leaseSeconds,
                            Integer maxAttempts, Long backoffBaseSeconds, Long backoffCapSeconds,
                            Long pending, Long scheduled, Long leased, Long processing, Long dead,
                            Double lagSeconds, Instant createdAt, Instant updatedAt) {

        static QueueView of(QueueRow q) {
            QueueRow.Counts c = q.counts();
            Double lag = c == null || c.lagSeconds() == null ? null : Math.max(0, c.lagSeconds());
            return new QueueView(q.name(), q.maxWorkers(), q.paused(), q.active(), q.leaseSeconds(), q.maxAttempts(),
                    q.backoffBaseMs() == null ? null : q.backoffBaseMs() / 1000,
                    q.backoffCapMs() == null ? null : q.backoffCapMs() / 1000,
                    c == null ? null : c.pending(), c == null ? null : c.scheduled(),
                    c == null ? null : c.leased(), c == null ? null : c.processing(), c == null ? null : c.dead(),
                    lag, q.createdAt(), q.updatedAt());
        }
    }
}
