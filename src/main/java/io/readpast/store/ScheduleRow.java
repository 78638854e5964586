package io.readpast.store;

import java.time.Instant;
import java.util.List;

/**
 * A recurring schedule as stored: cron expression and time zone, the template of the job it
 * enqueues (payload and tags as JSON text), its policies and where it stands.
 * {@code overlap} and {@code catchUp} are the stored names of core's Overlap and CatchUp policies.
 */
public record ScheduleRow(
        String name,
        String cron,
        String timeZone,
        String queue,
        String type,
        String payload,
        String tags,
        int priority,
        Integer maxAttempts,
        String overlap,
        String catchUp,
        boolean paused,
        Instant nextFireAt,
        Instant lastFireAt,
        Long lastJobId,
        String createdBy,
        String modifiedBy,
        Instant createdAt,
        Instant updatedAt) {

    /** A due schedule, locked for firing: the row, the database's now, and whether its last job is still live. */
    public record Due(ScheduleRow schedule, Instant dbNow, boolean lastJobLive) {
    }

    /**
     * What to do: the slots (in order, each at most once), each fired or skipped (overlap), and
     * the next slot to wait for. No slots with a next time only moves the schedule on (missed
     * slots skipped). The planner decides; the store records.
     */
    public record FirePlan(List<Slot> slots, Instant next) {
    }

    /** One slot of a {@link FirePlan}: its time, and whether it enqueues a job (false: recorded as skipped). */
    public record Slot(Instant at, boolean fire) {
    }

    /** What a firing did: the jobs it enqueued and how many slots it skipped for overlap. */
    public record Fired(List<JobRow> jobs, int skipped) {
    }
}
