package io.readpast.store;

import java.time.Instant;
import java.util.List;

/** What the background tasks do to the tables: retention, expiry, housekeeping, hot-table upkeep, timers. */
public interface MaintenanceStore {

    /** The database clock (every lease and schedule is computed from it). */
    Instant dbNow();

    /** Retention: deletes up to {@code limit} archived jobs older than {@code olderThanMs}; returns how many. */
    int archivePurgeOld(long olderThanMs, int limit);

    /** Retention: deletes up to {@code limit} dead letters older than {@code olderThanMs}; returns how many. */
    int deadPurgeOld(long olderThanMs, int limit);

    /**
     * Retention: deletes up to {@code limit} batches that finished more than {@code olderThanMs}
     * ago, with their jobs still in the archive or the dead letters; returns how many batches.
     */
    int batchPurgeOld(long olderThanMs, int limit);

    /**
     * Moves up to {@code limit} PENDING or WAITING jobs past their expiresAt, and up to
     * {@code limit} WAITING jobs enqueued more than {@code waitLimitMs} ago (0: no limit), to the
     * dead letters (DEAD, with their webhooks), settling their batches and dependants; returns
     * the queue of each.
     */
    List<String> jobExpirePending(int limit, long waitLimitMs);

    /** {@link #jobExpirePending(int, long)} with no wait limit. */
    default List<String> jobExpirePending(int limit) {
        return jobExpirePending(limit, 0);
    }

    /**
     * Housekeeping of the feature tables, up to the limit of rows each: fire records, uniqueness
     * keys whose window ran out, deliveries DELIVERED or DEAD longer ago than their retention.
     */
    Purged housekeepingPurge(HousekeepingAges ages);

    /** What {@link #housekeepingPurge} deleted. */
    record Purged(int fires, int uniqueKeys, int webhooks, int keyRates) {
        public int total() {
            return fires + uniqueKeys + webhooks + keyRates;
        }

        /** Whether a part deleted as many as it was allowed to: more may be waiting. */
        public boolean full(int limit) {
            return fires >= limit || uniqueKeys >= limit || webhooks >= limit || keyRates >= limit;
        }
    }

    /**
     * When the timers must next look (each null when nothing is planned): the earliest schedule
     * slot, job expiry and webhook delivery, with the database's now.
     */
    record NextTimes(Instant nextFire, Instant nextExpiry, Instant nextDelivery, Instant dbNow) {
    }

    /**
     * One statement: see {@link NextTimes}; a WAITING job's expiry is also its enqueue time plus
     * {@code waitLimitMs} (0: no limit).
     */
    NextTimes featureNextTimes(long waitLimitMs);

    /** Claims and batch acknowledgements so far: each leaves a dead row version in the hot table. */
    long churn();

    /**
     * Clears the hot table's dead row versions when the database counts at least
     * {@code minDead} of them, unless another instance is doing it now (see
     * {@link Dialect#hotTableUpkeep}). Returns what was done, for the log; null when nothing.
     */
    String hotTableUpkeep(long minDead);

    /**
     * Stores the settings of this broker that the SQL enqueue's rules read (readpast_setting):
     * name to value, null for none; one transaction.
     */
    void settingsPut(java.util.Map<String, String> settings);
}
