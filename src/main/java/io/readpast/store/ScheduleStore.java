package io.readpast.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Recurring schedules and the record of the slots they fired. */
public interface ScheduleStore {

    /**
     * Creates or replaces a schedule ({@code settings.nextFireAt()} is the first fire time of the
     * new expression); one that keeps its expression and time zone and is not paused keeps its
     * next fire time. {@code by} is recorded as modified_by (and created_by on creation).
     */
    ScheduleRow scheduleUpsert(ScheduleRow settings, String by);

    Optional<ScheduleRow> scheduleGet(String name);

    /** Schedules by name after {@code after} (null: from the first). */
    List<ScheduleRow> scheduleList(String after, int limit);

    /** Deletes a schedule and its fire records; false when there was none. */
    boolean scheduleDelete(String name);

    /** Pauses or resumes; resuming a paused schedule sets its next fire time to {@code nextFireAt}. */
    Optional<ScheduleRow> scheduleSetPaused(String name, boolean paused, Instant nextFireAt);

    /** Names of schedules with a slot due now (database clock), most overdue first. */
    List<String> scheduleListDue(int limit);

    /**
     * Fires one due schedule in one transaction: locks its row (skipping it when another
     * instance holds it), asks {@code planner} what to do with each slot, records each slot under
     * the unique key (schedule, slot) so that none fires twice, enqueues the template's job for
     * each slot the plan fires (due at the slot time), records the ones it skips, and moves the
     * schedule to the plan's next slot. Empty when the schedule was not due or was taken by
     * another instance.
     */
    Optional<ScheduleRow.Fired> scheduleFire(String name, Function<ScheduleRow.Due, ScheduleRow.FirePlan> planner,
                                             int defaultMaxAttempts);
}
