package io.readpast.store.jdbc;

import io.readpast.store.JobRow;
import io.readpast.store.NewJob;
import io.readpast.store.Params;
import io.readpast.store.ScheduleRow;
import io.readpast.store.ScheduleStore;
import io.readpast.store.Stmt;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static io.readpast.store.jdbc.SqlRunner.single;

/** {@link ScheduleStore} on the engine's named statements. */
final class JdbcScheduleStore implements ScheduleStore {

    /** fire outcome column: the slot enqueued a job. */
    private static final int FIRED = 1;
    /** fire outcome column: the slot was skipped (overlap). */
    private static final int SKIPPED = 2;

    private final SqlRunner sql;
    private final JobInserts inserts;

    JdbcScheduleStore(SqlRunner sql, JobInserts inserts) {
        this.sql = sql;
        this.inserts = inserts;
    }

    @Override
    public ScheduleRow scheduleUpsert(ScheduleRow s, String by) {
        Params p = Params.of()
                .str("name", s.name())
                .str("cron", s.cron())
                .str("time_zone", s.timeZone())
                .str("queue", s.queue())
                .str("type", s.type())
                .str("payload", s.payload())
                .str("tags", s.tags())
                .integer("priority", s.priority())
                .integer("max_attempts", s.maxAttempts())
                .str("overlap", s.overlap())
                .str("catch_up", s.catchUp())
                .bool("paused", s.paused())
                .time("next_fire_at", s.nextFireAt())
                .str("modified_by", by);
        return sql.oneStatement(c -> single(sql.query(c, Stmt.SCHEDULE_UPSERT, p, sql.rows()::schedule)))
                .orElseThrow(() -> new IllegalStateException("schedule row missing after upsert"));
    }

    @Override
    public Optional<ScheduleRow> scheduleGet(String name) {
        return sql.oneStatement(c -> single(sql.query(c, Stmt.SCHEDULE_GET, Params.of().str("name", name),
                sql.rows()::schedule)));
    }

    @Override
    public List<ScheduleRow> scheduleList(String after, int limit) {
        Params p = Params.of().str("after", after).integer("limit", limit);
        return sql.oneStatement(c -> sql.query(c, Stmt.SCHEDULE_LIST, p, sql.rows()::schedule));
    }

    @Override
    public boolean scheduleDelete(String name) {
        return sql.oneStatement(c -> sql.execute(c, Stmt.SCHEDULE_DELETE, Params.of().str("name", name)));
    }

    @Override
    public Optional<ScheduleRow> scheduleSetPaused(String name, boolean paused, Instant nextFireAt) {
        Params p = Params.of().str("name", name).bool("paused", paused).time("next_fire_at", nextFireAt);
        return sql.oneStatement(c -> single(sql.query(c, Stmt.SCHEDULE_SET_PAUSED, p, sql.rows()::schedule)));
    }

    @Override
    public List<String> scheduleListDue(int limit) {
        return sql.oneStatement(c -> sql.query(c, Stmt.SCHEDULE_LIST_DUE, Params.of().integer("limit", limit),
                (rs, cols) -> rs.getString(cols.get("name"))));
    }

    @Override
    public Optional<ScheduleRow.Fired> scheduleFire(String name, Function<ScheduleRow.Due, ScheduleRow.FirePlan> planner,
                                                    int defaultMaxAttempts) {
        return sql.tx(c -> {
            Optional<ScheduleRow.Due> locked = single(sql.query(c, Stmt.SCHEDULE_LOCK_DUE, Params.of().str("name", name),
                    (rs, cols) -> new ScheduleRow.Due(sql.rows().schedule(rs, cols), sql.rows().instant(rs, cols, "db_now"),
                            rs.getBoolean(cols.get("last_job_live")))));
            if (locked.isEmpty()) {
                return Optional.<ScheduleRow.Fired>empty();
            }
            ScheduleRow s = locked.get().schedule();
            ScheduleRow.FirePlan plan = planner.apply(locked.get());
            List<JobRow> jobs = new ArrayList<>();
            int skipped = 0;
            Instant lastSlot = null;
            Long lastJob = null;
            for (ScheduleRow.Slot slot : plan.slots()) {
                Params fire = Params.of().str("schedule_name", name).time("slot_at", slot.at())
                        .integer("outcome", slot.fire() ? FIRED : SKIPPED);
                if (!sql.execute(c, Stmt.SCHEDULE_FIRE_INSERT, fire)) {
                    continue; // recorded before: this slot has fired already
                }
                lastSlot = slot.at();
                if (!slot.fire()) {
                    skipped++;
                    continue;
                }
                NewJob job = new NewJob(s.queue(), s.type(), s.payload(), s.tags(), null, s.priority(), s.maxAttempts(),
                        defaultMaxAttempts, slot.at(), 0, "schedule:" + name, null, null, null, 0, null);
                JobRow row = inserts.insert(c, job)
                        .orElseThrow(() -> new IllegalStateException("scheduled job was not inserted"));
                sql.execute(c, Stmt.SCHEDULE_FIRE_SET_JOB, Params.of().str("schedule_name", name).time("slot_at", slot.at())
                        .lng("job_id", row.id()));
                jobs.add(row);
                lastJob = row.id();
            }
            sql.execute(c, Stmt.SCHEDULE_ADVANCE, Params.of().str("name", name).time("next_fire_at", plan.next())
                    .time("last_fire_at", lastSlot).lng("last_job_id", lastJob));
            return Optional.of(new ScheduleRow.Fired(jobs, skipped));
        });
    }
}
