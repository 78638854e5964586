package io.readpast.store.jdbc;

import io.readpast.store.BatchRow;
import io.readpast.store.ClaimParams;
import io.readpast.store.CompleteItem;
import io.readpast.store.DeadFilter;
import io.readpast.store.HeartbeatItem;
import io.readpast.store.JobFilter;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.Json;
import io.readpast.store.LeaseEnd;
import io.readpast.store.LeaseRef;
import io.readpast.store.NewJob;
import io.readpast.store.Params;
import io.readpast.store.ReleaseItem;
import io.readpast.store.RetryItem;
import io.readpast.store.Stmt;


import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

import static io.readpast.store.jdbc.SqlRunner.single;

/** {@link JobStore} on the engine's named statements. */
final class JdbcJobStore implements JobStore {

    /** A job keeps the errors of its last this many attempts (the errors column). */
    static final int KEEP_ERRORS = 20;

    private final SqlRunner sql;
    private final JobInserts inserts;
    private final ClaimPath claims;
    private final Settlement settlement;

    JdbcJobStore(SqlRunner sql, JobInserts inserts, ClaimPath claims, Settlement settlement) {
        this.sql = sql;
        this.inserts = inserts;
        this.claims = claims;
        this.settlement = settlement;
    }

    @Override
    public boolean mergesEnqueues() {
        return jsonStringsComeBackUnescaped();
    }

    @Override
    public boolean mergesAcks() {
        return jsonStringsComeBackUnescaped();
    }

    /** Whether OPENJSON hands a string member back unescaped: everywhere but on Babelfish. */
    private boolean jsonStringsComeBackUnescaped() {
        return !io.readpast.store.SqlServerDialect.BABELFISH.equals(sql.dialect().flavor());
    }

    @Override
    public Optional<Inserted> jobInsert(NewJob job) {
        if (job.uniqueKey() == null && job.groupKey() == null) {
            return sql.oneStatement(c -> inserts.insert(c, job).map(r -> new Inserted(r, true)));
        }
        if (job.uniqueKey() == null) {
            // a grouped job: its group's lock and the insert, in one transaction
            return sql.tx(c -> {
                inserts.lockGroup(c, job.queue(), job.groupKey());
                return inserts.insert(c, job).map(r -> new Inserted(r, true));
            });
        }
        return sql.tx(c -> Optional.of(inserts.insertUnique(c, job, false)));
    }

    @Override
    public Inserted jobInsertDebounced(NewJob job, String windowKey, long windowMs) {
        return sql.tx(c -> inserts.insertDebounced(c, job, windowKey, windowMs));
    }

    @Override
    public List<Inserted> jobInsertMany(List<NewJob> jobs) {
        if (jobs.stream().anyMatch(j -> j.uniqueKey() != null || j.groupKey() != null)) {
            // uniqueFor needs a decision per item (and items may share a key), and grouped jobs
            // need their group's lock: one by one, in order
            return sql.tx(c -> {
                // the batch's group locks first, in one order, so that batches never wait in a circle
                SortedSet<String> groups = new TreeSet<>();
                for (NewJob job : jobs) {
                    if (job.groupKey() != null) {
                        groups.add(job.queue() + "\u001f" + job.groupKey());
                    }
                }
                for (String g : groups) {
                    int sep = g.indexOf('\u001f');
                    inserts.lockGroup(c, g.substring(0, sep), g.substring(sep + 1));
                }
                List<Inserted> out = new ArrayList<>(jobs.size());
                for (NewJob job : jobs) {
                    out.add(job.uniqueKey() != null ? inserts.insertUnique(c, job, true) : inserts.insertOrKeyHolder(c, job));
                }
                return out;
            });
        }
        Params p = Params.of().str("jobs", JobInserts.manyJson(jobs));
        return sql.tx(c -> {
            // one statement inserts them all; it returns each inserted row with its position
            Inserted[] out = new Inserted[jobs.size()];
            sql.query(c, Stmt.JOB_INSERT_MANY, p, (rs, cols) -> {
                out[rs.getInt(cols.get("ord")) - 1] = new Inserted(sql.rows().job(rs, cols), true);
                return Boolean.TRUE;
            });
            // the rest found their idempotency key held (by a live job, or by an earlier item)
            for (int k = 0; k < out.length; k++) {
                if (out[k] == null) {
                    String key = jobs.get(k).idempotencyKey();
                    if (key == null) {
                        throw new IllegalStateException("batch item " + k + " was neither inserted nor keyed");
                    }
                    out[k] = new Inserted(inserts.keyHolder(c, key), false);
                }
            }
            return List.of(out);
        });
    }

    @Override
    public Optional<JobRow> jobGetByKey(String idempotencyKey) {
        return sql.oneStatement(c -> single(sql.queryJobs(c, Stmt.JOB_GET_BY_KEY,
                Params.of().str("idempotency_key", idempotencyKey))));
    }

    @Override
    public Map<Long, String> jobQueues(Collection<Long> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        Params p = Params.of().str("ids", Json.write(ids));
        Map<Long, String> out = new HashMap<>();
        sql.oneStatement(c -> sql.query(c, Stmt.JOB_QUEUES, p, (rs, cols) -> out.put(rs.getLong(cols.get("id")),
                rs.getString(cols.get("queue")))));
        return out;
    }

    @Override
    public Optional<JobRow> jobGet(long id) {
        return sql.oneStatement(c -> single(sql.queryJobs(c, Stmt.JOB_GET, Params.of().lng("id", id))));
    }

    @Override
    public List<JobRow> jobClaim(ClaimParams claim) {
        return claims.claim(claim);
    }

    @Override
    public AckClaimed jobAckClaim(List<CompleteItem> acks, ClaimParams claim) {
        return claims.ackClaim(acks, claim);
    }

    @Override
    public long contendedClaimRetries() {
        return claims.contendedRetries();
    }

    @Override
    public List<AckClaimed> jobClaimMerged(List<List<CompleteItem>> acks, List<ClaimParams> claims) {
        return this.claims.ackClaimMany(acks, claims);
    }

    @Override
    public Map<Long, Acked> jobCompleteMany(List<CompleteItem> items, String by) {
        return claims.completeMany(items, by);
    }

    @Override
    public Optional<JobRow> jobHeartbeat(LeaseRef lease, Integer leaseSeconds, String progress) {
        return one(Stmt.JOB_HEARTBEAT, lease(lease).integer("lease_seconds", leaseSeconds).str("progress", progress));
    }

    @Override
    public Map<Long, Extended> jobHeartbeatMany(List<HeartbeatItem> items) {
        String itemsJson = Json.array(items, items.size() * 100, (g, i) -> {
            g.writeNumberField("id", i.id());
            g.writeStringField("lease_id", i.leaseId());
            if (i.leaseSeconds() == null) {
                g.writeNullField("lease_seconds");
            } else {
                g.writeNumberField("lease_seconds", i.leaseSeconds());
            }
            // the progress as a JSON object, not a string holding one: Babelfish's OPENJSON hands a
            // string member back still escaped, an object member as written (on SQL Server too)
            if (i.progress() == null) {
                g.writeNullField("progress");
            } else {
                g.writeFieldName("progress");
                g.writeRawValue(i.progress());
            }
        });
        Params p = Params.of().str("items", itemsJson);
        Map<Long, Extended> out = new HashMap<>();
        sql.oneStatement(c -> sql.query(c, Stmt.JOB_HEARTBEAT_MANY, p, (rs, cols) -> {
            out.put(rs.getLong(cols.get("id")), new Extended(RowReader.uuid(rs, cols, "lease_id"),
                    sql.rows().instant(rs, cols, "lease_expires_at"), rs.getBoolean(cols.get("cancel_requested"))));
            return Boolean.TRUE;
        }));
        return out;
    }

    @Override
    public Optional<JobRow> jobComplete(LeaseRef lease, String result, String by) {
        // a job in no batch and with no dependents: one statement; the others (and a lease not
        // held) get a second look, in a transaction that settles what the completion starts
        Optional<JobRow> done = one(Stmt.JOB_COMPLETE, lease(lease).str("result", result).str("modified_by", by)
                .bool("linked", false));
        if (done.isPresent()) {
            return done;
        }
        return moveAndSettle(Stmt.JOB_COMPLETE, lease(lease).str("result", result).str("modified_by", by)
                .bool("linked", true));
    }

    @Override
    public Map<Long, Released> jobReleaseMany(List<ReleaseItem> items, String by) {
        Params p = Params.of().str("items", Json.array(items, items.size() * 80, (g, i) -> {
            g.writeNumberField("id", i.id());
            g.writeStringField("lease_id", i.leaseId());
            g.writeNumberField("delay_ms", i.delayMs());
        })).str("modified_by", by);
        Map<Long, Released> out = new HashMap<>();
        sql.oneStatement(c -> sql.query(c, Stmt.JOB_RELEASE_MANY, p, (rs, cols) -> {
            JobRow job = sql.rows().job(rs, cols);
            out.put(job.id(), new Released(job, RowReader.uuid(rs, cols, "released_lease")));
            return Boolean.TRUE;
        }));
        return out;
    }

    @Override
    public Map<Long, Retried> jobRetryMany(List<RetryItem> items, String by) {
        Params p = Params.of().str("items", Json.array(items, items.size() * 120, (g, i) -> {
            g.writeNumberField("id", i.id());
            g.writeStringField("lease_id", i.leaseId());
            g.writeStringField("error", i.error());
            g.writeNumberField("delay_ms", i.delayMs());
        })).str("modified_by", by).integer("keep_errors", KEEP_ERRORS);
        Map<Long, Retried> out = new HashMap<>();
        sql.oneStatement(c -> sql.query(c, Stmt.JOB_RETRY_MANY, p, (rs, cols) -> {
            JobRow job = sql.rows().job(rs, cols);
            out.put(job.id(), new Retried(job, RowReader.uuid(rs, cols, "retried_lease")));
            return Boolean.TRUE;
        }));
        return out;
    }

    @Override
    public Map<Long, JobRow> jobCompleteRows(List<CompleteItem> items, String by) {
        return claims.completeRows(items, by);
    }

    @Override
    public Optional<JobRow> jobCancelPending(long id, String by, boolean skipLocked) {
        return moveAndSettle(Stmt.JOB_CANCEL_PENDING,
                Params.of().lng("id", id).str("modified_by", by).bool("skip_locked", skipLocked));
    }

    @Override
    public Optional<JobRow> jobCancelRequest(long id, String by, boolean skipLocked) {
        return one(Stmt.JOB_CANCEL_REQUEST,
                Params.of().lng("id", id).str("modified_by", by).bool("skip_locked", skipLocked));
    }

    @Override
    public Optional<JobRow> jobCancelLeased(LeaseEnd end) {
        return moveAndSettle(Stmt.JOB_CANCEL_LEASED, end(end));
    }

    @Override
    public Optional<JobRow> jobRetry(LeaseEnd end, long delayMs) {
        return one(Stmt.JOB_RETRY, end(end).lng("delay_ms", delayMs));
    }

    @Override
    public Optional<JobRow> jobKill(LeaseEnd end) {
        return moveAndSettle(Stmt.JOB_KILL, end(end));
    }

    @Override
    public Optional<JobRow> jobRelease(LeaseRef lease, long delayMs, String by) {
        return one(Stmt.JOB_RELEASE, lease(lease).lng("delay_ms", delayMs).str("modified_by", by));
    }

    @Override
    public Optional<JobRow> jobRequeue(long id, String payload, boolean keepAttempts, String queue, String by) {
        Params p = Params.of().lng("id", id).str("payload", payload).bool("keep_attempts", keepAttempts)
                .str("queue", queue).str("modified_by", by);
        return sql.tx(c -> {
            Optional<JobRow> job = single(sql.queryJobs(c, Stmt.JOB_GET, Params.of().lng("id", id)));
            // a job of a batch stays in it: the batch it rejoins is locked first (as a batch add
            // locks the batch its jobs join), then the job is read again, settled under that lock
            // (every requeue and purge of the batch's jobs takes it), to know which count it leaves
            BatchRow batch = null;
            if (job.isPresent() && job.get().batchId() != null && finished(job.get())) {
                batch = settlement.lock(c, job.get().batchId());
                job = single(sql.queryJobs(c, Stmt.JOB_GET, Params.of().lng("id", id)));
            }
            // a grouped job goes to the end of its group: take the group's lock first
            if (job.isPresent() && job.get().groupKey() != null) {
                inserts.lockGroup(c, queue != null ? queue : job.get().queue(), job.get().groupKey());
            }
            Optional<JobRow> requeued = single(sql.queryJobs(c, Stmt.JOB_REQUEUE, p));
            if (requeued.isPresent() && batch != null && job.isPresent() && finished(job.get())) {
                settlement.requeued(c, batch, job.get().status());
            }
            return requeued;
        });
    }

    @Override
    public Optional<JobRow> jobEdit(long id, Integer priority, java.time.Instant runAt, boolean runNow, String payload,
                                    String by) {
        return one(Stmt.JOB_EDIT, Params.of().lng("id", id).integer("priority", priority).time("run_at", runAt)
                .bool("run_now", runNow).str("payload", payload).str("modified_by", by));
    }

    /** DEAD, or CANCELLED: the outcomes a requeue takes back. */
    private static boolean finished(JobRow job) {
        return job.status() == 4 || job.status() == 5;
    }

    @Override
    public boolean jobPurge(long id) {
        return sql.oneStatement(c -> sql.execute(c, Stmt.JOB_PURGE, Params.of().lng("id", id)));
    }

    @Override
    public List<JobRow> jobList(JobFilter f) {
        Params p = Params.of()
                .str("queue", f.queue())
                .str("type", f.type())
                .str("statuses", f.statuses() == null ? null : Json.write(f.statuses()))
                .str("tag", f.tag())
                .str("fairness_key", f.fairnessKey())
                .str("group_key", f.groupKey())
                .lng("batch_id", f.batchId())
                .str("error", f.error())
                .time("created_after", f.createdAfter())
                .time("created_before", f.createdBefore())
                .time("finished_after", f.finishedAfter())
                .time("finished_before", f.finishedBefore())
                .str("payload", f.payload())
                .lng("after", f.after())
                .integer("limit", f.limit());
        return sql.oneStatement(c -> sql.queryJobs(c, Stmt.JOB_LIST, p));
    }

    @Override
    public List<JobRow> jobListDead(DeadFilter f) {
        Params p = Params.of().str("queue", f.queue()).str("type", f.type()).lng("after", f.after())
                .integer("limit", f.limit());
        return sql.oneStatement(c -> sql.queryJobs(c, Stmt.JOB_LIST_DEAD, p));
    }

    @Override
    public Throughput jobThroughput(String queue, int minutes) {
        Params p = Params.of().str("queue", queue).integer("minutes", minutes);
        return sql.tx(c -> {
            Instant[] start = new Instant[1];
            List<Throughput.Count> counts = new ArrayList<>();
            sql.query(c, Stmt.JOB_THROUGHPUT, p, (rs, cols) -> {
                start[0] = sql.rows().instant(rs, cols, "window_start");
                String q = RowReader.str(rs, cols, "queue");
                if (q != null) {
                    counts.add(new Throughput.Count(q, rs.getInt(cols.get("status")), rs.getInt(cols.get("bucket")),
                            rs.getLong(cols.get("n"))));
                }
                return Boolean.TRUE;
            });
            return new Throughput(start[0], counts);
        });
    }

    @Override
    public ExpiredLeases jobListExpired(int limit) {
        return sql.oneStatement(c -> {
            // one row per expired lease, or one row of NULL job columns; the times on every row
            Instant[] times = new Instant[2];
            List<JobRow> expired = new ArrayList<>();
            sql.query(c, Stmt.JOB_LIST_EXPIRED, Params.of().integer("limit", limit), (rs, cols) -> {
                times[0] = sql.rows().instant(rs, cols, "next_expiry");
                times[1] = sql.rows().instant(rs, cols, "db_now");
                rs.getLong(cols.get("id"));
                if (!rs.wasNull()) {
                    expired.add(sql.rows().job(rs, cols));
                }
                return Boolean.TRUE;
            });
            return new ExpiredLeases(expired, times[0], times[1]);
        });
    }

    @Override
    public List<DueQueue> jobAnyDue(List<String> queues) {
        Params p = Params.of().str("queues", queues == null ? null : Json.write(queues));
        return sql.oneStatement(c -> sql.query(c, Stmt.JOB_ANY_DUE, p, (rs, cols) -> new DueQueue(
                rs.getString(cols.get("name")), rs.getBoolean(cols.get("due_now")),
                sql.rows().instant(rs, cols, "next_due_at"), sql.rows().instant(rs, cols, "db_now"))));
    }

    /**
     * A statement that moves one job out of the hot table, and the settling of its batch and
     * dependents (when it has either) in the same transaction; announced after the commit.
     */
    private Optional<JobRow> moveAndSettle(Stmt stmt, Params p) {
        Settlement.Released[] released = new Settlement.Released[1];
        Optional<JobRow> moved = sql.tx(c -> {
            Optional<JobRow> row = single(sql.queryJobs(c, stmt, p));
            if (row.isPresent() && row.get().linked()) {
                released[0] = settlement.settle(c, List.of(Settlement.Moved.of(row.get())));
            }
            return row;
        });
        settlement.announce(released[0]);
        return moved;
    }

    private Optional<JobRow> one(Stmt stmt, Params p) {
        return sql.oneStatement(c -> single(sql.queryJobs(c, stmt, p)));
    }

    private static Params lease(LeaseRef lease) {
        return Params.of().lng("id", lease.id()).str("lease_id", lease.leaseId());
    }

    private static Params end(LeaseEnd end) {
        return Params.of().lng("id", end.id()).str("lease_id", end.leaseId()).str("error", end.error())
                .bool("expired_only", end.expiredOnly()).str("modified_by", end.by())
                .integer("keep_errors", KEEP_ERRORS);
    }

}
