package io.readpast.store;

import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one {@link JobStore} implementation: runs the engine's named statements through JDBC.
 * What differs per engine is the SQL text (resource files) and the small {@link Dialect}.
 * Each operation is one short transaction (on PostgreSQL, an operation of one statement runs in
 * autocommit: one round trip), retried with jittered backoff when the database picks it as a
 * deadlock victim or fails it for serialization.
 */
public final class JdbcJobStore implements JobStore {

    private static final Logger LOG = Logger.getLogger(JdbcJobStore.class);
    private static final int MAX_TRIES = 5;
    /** A job keeps the errors of its last this many attempts (the errors column). */
    static final int KEEP_ERRORS = 20;
    /** Claim order: priority (higher first), then due time, then id. */
    private static final java.util.Comparator<JobRow> CLAIM_ORDER = java.util.Comparator
            .comparingInt(JobRow::priority).reversed()
            .thenComparing(JobRow::dueAt)
            .thenComparingLong(JobRow::id);

    private final DataSource dataSource;
    private final Dialect dialect;
    private final StatementCatalog catalog;
    private final java.util.Map<Stmt, java.util.concurrent.atomic.AtomicLong> statements = new java.util.EnumMap<>(Stmt.class);

    /**
     * Claim statements running at once from this broker. Claimers that start together scan the
     * same head of the claim index and step over each other's locked rows, so past about the
     * database's core count more of them add work, not throughput (bench/results/round3-levers.md).
     */
    private final java.util.concurrent.Semaphore claimGate;

    public JdbcJobStore(DataSource dataSource, Dialect dialect, StatementCatalog catalog, int claimConcurrency) {
        if (claimConcurrency < 1) {
            throw new IllegalArgumentException("claim concurrency must be at least 1, got " + claimConcurrency);
        }
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.catalog = catalog;
        this.claimGate = new java.util.concurrent.Semaphore(claimConcurrency, true);
        for (Stmt s : Stmt.values()) {
            statements.put(s, new java.util.concurrent.atomic.AtomicLong());
        }
    }

    /**
     * Jobs this store has claimed or acknowledged in batches: each leaves a dead row version in
     * the hot table, which {@link #hotTableUpkeep} clears once enough have piled up.
     */
    private final java.util.concurrent.atomic.AtomicLong churn = new java.util.concurrent.atomic.AtomicLong();

    /** Claims and batch acknowledgements so far (see {@link #hotTableUpkeep}). */
    public long churn() {
        return churn.get();
    }

    /**
     * Clears the hot table's dead row versions when the database counts at least
     * {@code minDead} of them, unless another instance is doing it now (see
     * {@link Dialect#hotTableUpkeep}). Returns what was done, for the log.
     */
    public String hotTableUpkeep(long minDead) {
        return run(c -> dialect.hotTableUpkeep(c, minDead), true);
    }

    /** Transient failures (deadlock victim, lock timeout, serialization) this store has met. */
    private final java.util.concurrent.atomic.AtomicLong transientFailures = new java.util.concurrent.atomic.AtomicLong();

    /**
     * How many transient failures (deadlock victim, lock timeout, serialization failure) this
     * store has met, retried or not: the lock-rule tests expect none.
     */
    public long transientFailures() {
        return transientFailures.get();
    }

    /** How many times this store has run a statement (the cost figure for idle long-polls). */
    public long statementsExecuted(Stmt stmt) {
        return statements.get(stmt).get();
    }

    @Override
    public Optional<Inserted> jobInsert(NewJob job) {
        if (job.uniqueKey() == null && job.groupKey() == null) {
            return oneStatement(c -> single(queryJobs(c, Stmt.JOB_INSERT, insertParams(job))).map(r -> new Inserted(r, true)));
        }
        if (job.uniqueKey() == null) {
            // a grouped job: its group's lock and the insert, in one transaction
            return tx(c -> {
                if (job.groupKey() != null) {
                    lockGroup(c, job.queue(), job.groupKey());
                }
                return single(queryJobs(c, Stmt.JOB_INSERT, insertParams(job))).map(r -> new Inserted(r, true));
            });
        }
        return tx(c -> Optional.of(insertUnique(c, job, false)));
    }

    /**
     * uniqueFor: takes the job's uniqueness key and inserts it, in the caller's transaction. When
     * another job holds the key within its window, that job is the answer (created false) and
     * nothing is inserted; when the holder was deleted meanwhile, the key is taken over. When a
     * live job holds the idempotency key, that job is the answer and stands for the key.
     */
    private Inserted insertUnique(Connection c, NewJob job, boolean groupLocked) throws SQLException {
        if (job.groupKey() != null && !groupLocked) {
            // the group's lock before the key: every path takes its locks in that order
            lockGroup(c, job.queue(), job.groupKey());
        }
        Params key = Params.of().str("unique_key", job.uniqueKey()).lng("unique_for_ms", job.uniqueForMs());
        boolean taken = !query(c, Stmt.UNIQUE_KEY_CLAIM, key.bool("force", false), (rs, cols) -> Boolean.TRUE).isEmpty();
        if (!taken) {
            Long holder = single(query(c, Stmt.UNIQUE_KEY_GET, Params.of().str("unique_key", job.uniqueKey()),
                    (rs, cols) -> lng(rs, cols, "job_id"))).orElse(null);
            Optional<JobRow> held = holder == null ? Optional.empty()
                    : single(queryJobs(c, Stmt.JOB_GET, Params.of().lng("id", holder)));
            if (held.isPresent()) {
                return new Inserted(held.get(), false);
            }
            // the holder is gone (deleted, or purged by retention): the key is free for this job
            query(c, Stmt.UNIQUE_KEY_CLAIM, Params.of().str("unique_key", job.uniqueKey())
                    .lng("unique_for_ms", job.uniqueForMs()).bool("force", true), (rs, cols) -> Boolean.TRUE);
        }
        Optional<JobRow> row = single(queryJobs(c, Stmt.JOB_INSERT, insertParams(job)));
        JobRow answer = row.isPresent() ? row.get()
                : single(queryJobs(c, Stmt.JOB_GET_BY_KEY, Params.of().str("idempotency_key", job.idempotencyKey())))
                        .orElseThrow(() -> new SQLException("idempotency key vanished", "40001"));
        query(c, Stmt.UNIQUE_KEY_SET_JOB, Params.of().str("unique_key", job.uniqueKey()).lng("job_id", answer.id()),
                (rs, cols) -> Boolean.TRUE);
        return new Inserted(answer, row.isPresent());
    }

    @Override
    public List<Inserted> jobInsertMany(List<NewJob> jobs) {
        if (jobs.stream().anyMatch(j -> j.uniqueKey() != null || j.groupKey() != null)) {
            // uniqueFor needs a decision per item (and items may share a key), and grouped jobs
            // need their group's lock: one by one, in order
            return tx(c -> {
                // the batch's group locks first, in one order, so that batches never wait in a circle
                java.util.SortedSet<String> groups = new java.util.TreeSet<>();
                for (NewJob job : jobs) {
                    if (job.groupKey() != null) {
                        groups.add(job.queue() + "\u001f" + job.groupKey());
                    }
                }
                for (String g : groups) {
                    int sep = g.indexOf('\u001f');
                    lockGroup(c, g.substring(0, sep), g.substring(sep + 1));
                }
                List<Inserted> out = new ArrayList<>(jobs.size());
                for (NewJob job : jobs) {
                    if (job.uniqueKey() != null) {
                        out.add(insertUnique(c, job, true));
                        continue;
                    }
                    Optional<JobRow> row = single(queryJobs(c, Stmt.JOB_INSERT, insertParams(job)));
                    out.add(row.isPresent() ? new Inserted(row.get(), true) : new Inserted(single(queryJobs(c,
                            Stmt.JOB_GET_BY_KEY, Params.of().str("idempotency_key", job.idempotencyKey())))
                            .orElseThrow(() -> new SQLException("idempotency key vanished", "40001")), false));
                }
                return out;
            });
        }
        Params p = Params.of().str("jobs", insertManyJson(jobs));
        return tx(c -> {
            // one statement inserts them all; it returns each inserted row with its position
            Inserted[] out = new Inserted[jobs.size()];
            for (Object[] row : query(c, Stmt.JOB_INSERT_MANY, p,
                    (rs, cols) -> new Object[] {rs.getInt(cols.get("ord")), mapJob(rs, cols)})) {
                out[(Integer) row[0] - 1] = new Inserted((JobRow) row[1], true);
            }
            // the rest found their idempotency key held (by a live job, or by an earlier item)
            for (int k = 0; k < out.length; k++) {
                if (out[k] == null) {
                    String key = jobs.get(k).idempotencyKey();
                    if (key == null) {
                        throw new IllegalStateException("batch item " + k + " was neither inserted nor keyed");
                    }
                    JobRow existing = single(queryJobs(c, Stmt.JOB_GET_BY_KEY, Params.of().str("idempotency_key", key)))
                            .orElseThrow(() -> new SQLException("idempotency key vanished", "40001"));
                    out[k] = new Inserted(existing, false);
                }
            }
            return List.of(out);
        });
    }

    /** The jobs as job_insert_many reads them: JSON text columns as strings, run_at as ISO-8601 UTC. */
    private static String insertManyJson(List<NewJob> jobs) {
        java.io.StringWriter w = new java.io.StringWriter(jobs.size() * 160);
        try (com.fasterxml.jackson.core.JsonGenerator g = Json.mapper().getFactory().createGenerator(w)) {
            g.writeStartArray();
            for (NewJob j : jobs) {
                g.writeStartObject();
                g.writeStringField("queue", j.queue());
                g.writeStringField("type", j.type());
                g.writeStringField("payload", j.payload());
                g.writeStringField("tags", j.tags());
                g.writeStringField("idempotency_key", j.idempotencyKey());
                g.writeNumberField("priority", j.priority());
                if (j.maxAttempts() == null) {
                    g.writeNullField("max_attempts");
                } else {
                    g.writeNumberField("max_attempts", j.maxAttempts());
                }
                g.writeNumberField("default_max_attempts", j.defaultMaxAttempts());
                // microseconds: what both engines store (datetime2(6), timestamptz)
                g.writeStringField("run_at", j.runAt() == null ? null
                        : j.runAt().truncatedTo(java.time.temporal.ChronoUnit.MICROS).toString());
                g.writeNumberField("delay_ms", j.delayMs());
                g.writeStringField("created_by", j.createdBy());
                g.writeStringField("webhook_url", j.webhookUrl());
                g.writeStringField("expires_at", j.expiresAt() == null ? null
                        : j.expiresAt().truncatedTo(java.time.temporal.ChronoUnit.MICROS).toString());
                g.writeEndObject();
            }
            g.writeEndArray();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        return w.toString();
    }

    @Override
    public Optional<JobRow> jobGetByKey(String idempotencyKey) {
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_GET_BY_KEY, Params.of().str("idempotency_key", idempotencyKey))));
    }

    private static Params insertParams(NewJob job) {
        return Params.of()
                .str("queue", job.queue())
                .str("type", job.type())
                .str("payload", job.payload())
                .str("tags", job.tags())
                .str("idempotency_key", job.idempotencyKey())
                .integer("priority", job.priority())
                .integer("max_attempts", job.maxAttempts())
                .integer("default_max_attempts", job.defaultMaxAttempts())
                .time("run_at", job.runAt())
                .lng("delay_ms", job.delayMs())
                .str("created_by", job.createdBy())
                .str("webhook_url", job.webhookUrl())
                .time("expires_at", job.expiresAt())
                .str("group_key", job.groupKey());
    }

    @Override
    public Map<Long, String> jobQueues(java.util.Collection<Long> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        Params p = Params.of().str("ids", Json.write(ids));
        Map<Long, String> out = new HashMap<>();
        oneStatement(c -> query(c, Stmt.JOB_QUEUES, p, (rs, cols) -> out.put(rs.getLong(cols.get("id")),
                rs.getString(cols.get("queue")))));
        return out;
    }

    @Override
    public Optional<JobRow> jobGet(long id) {
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_GET, Params.of().lng("id", id))));
    }

    @Override
    public List<JobRow> jobClaim(String workerId, List<String> queues, int limit, Integer leaseSeconds,
                                 int defaultLeaseSeconds, String by) {
        String queuesJson = queues == null ? null : Json.write(queues);
        Params p = Params.of()
                .str("worker_id", workerId)
                .str("queues", queuesJson)
                .integer("limit", limit)
                .integer("lease_seconds", leaseSeconds)
                .integer("default_lease_seconds", defaultLeaseSeconds)
                .str("modified_by", by);
        if (!cappedInScope(queues)) {
            // No capped queue in scope: the claim alone, one statement (one round trip on
            // PostgreSQL). Locking nothing, it leaves capped queues alone even if one was capped
            // a moment ago elsewhere, so the cap holds whatever the cache says.
            p.str("locked_queues", "[]");
            return gated(() -> oneStatement(c -> claimed(queryJobs(c, Stmt.JOB_CLAIM, p))));
        }
        return gated(() -> tx(c -> claimLocked(c, p, queuesJson)));
    }

    /** Runs a claim through {@link #claimGate}. */
    private <T> T gated(java.util.function.Supplier<T> claim) {
        try {
            claimGate.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(StoreException.Kind.UNAVAILABLE, "interrupted", e);
        }
        try {
            return claim.get();
        } finally {
            claimGate.release();
        }
    }

    /**
     * The claim when a capped queue may be in scope, inside the caller's transaction. Serialise
     * claims on capped queues only: lock their rows first, in a statement of its own, so that the
     * claim's snapshot (PostgreSQL) sees every lease committed before the lock was granted.
     */
    private List<JobRow> claimLocked(Connection c, Params p, String queuesJson) throws SQLException {
        List<String> locked = new ArrayList<>();
        java.util.Set<String> rateLimited = new java.util.HashSet<>();
        query(c, Stmt.QUEUE_LOCK_CAPPED, Params.of().str("queues", queuesJson), (rs, cols) -> {
            String name = rs.getString(cols.get("name"));
            locked.add(name);
            if (rs.getBoolean(cols.get("rate_limited"))) {
                rateLimited.add(name);
            }
            return Boolean.TRUE;
        });
        p.str("locked_queues", Json.write(locked));
        List<JobRow> claimed = claimed(queryJobs(c, Stmt.JOB_CLAIM, p));
        if (!rateLimited.isEmpty()) {
            // Rate limits: count this claim in each rate-limited queue's window, in the same
            // transaction, while its row is still locked (the next claim there reads the count).
            Map<String, Integer> perQueue = new java.util.TreeMap<>();
            for (JobRow j : claimed) {
                if (rateLimited.contains(j.queue())) {
                    perQueue.merge(j.queue(), 1, Integer::sum);
                }
            }
            if (!perQueue.isEmpty()) {
                List<Map<String, Object>> counts = new ArrayList<>();
                perQueue.forEach((q, n) -> counts.add(Map.of("queue", q, "n", n)));
                query(c, Stmt.QUEUE_RATE_COUNT, Params.of().str("counts", Json.write(counts)), (rs, cols) -> Boolean.TRUE);
            }
        }
        return claimed;
    }

    @Override
    public AckClaimed jobAckClaim(List<CompleteItem> acks, String workerId, List<String> queues, int limit,
                                  Integer leaseSeconds, int defaultLeaseSeconds, String by) {
        String queuesJson = queues == null ? null : Json.write(queues);
        String items = completeItemsJson(acks);
        if (cappedInScope(queues)) {
            // the acks first (they may free slots of a capped queue), then the locked claim
            Params p = Params.of()
                    .str("worker_id", workerId)
                    .str("queues", queuesJson)
                    .integer("limit", limit)
                    .integer("lease_seconds", leaseSeconds)
                    .integer("default_lease_seconds", defaultLeaseSeconds)
                    .str("modified_by", by);
            // the acks commit first, in a transaction of their own: the claim's queue lock is
            // never taken while this transaction still holds the acked rows (two ack-and-claims
            // on one capped queue would otherwise wait for each other's deletes, and deadlock)
            Map<Long, Acked> acked = oneStatement(c -> completeMany(c,
                    Params.of().str("items", items).str("modified_by", by)));
            return new AckClaimed(acked, gated(() -> tx(c -> claimLocked(c, p, queuesJson))));
        }
        Params p = Params.of()
                .str("items", items)
                .str("worker_id", workerId)
                .str("queues", queuesJson)
                .integer("limit", limit)
                .integer("lease_seconds", leaseSeconds)
                .integer("default_lease_seconds", defaultLeaseSeconds)
                .str("modified_by", by);
        return gated(() -> oneStatement(c -> {
            // one row per claimed job (or one row of nulls), the acked jobs on the first row
            String[] acked = new String[1];
            List<JobRow> claimed = new ArrayList<>();
            query(c, Stmt.JOB_ACK_CLAIM, p, (rs, cols) -> {
                String a = rs.getString(cols.get("acked"));
                if (a != null) {
                    acked[0] = a;
                }
                rs.getLong(cols.get("id"));
                if (!rs.wasNull()) {
                    claimed.add(mapJob(rs, cols));
                }
                return Boolean.TRUE;
            });
            Map<Long, Acked> ackedJobs = parseAcked(acked[0]);
            churn.addAndGet(ackedJobs.size());
            return new AckClaimed(ackedJobs, claimed(claimed));
        }));
    }

    /** The "acked" column of job_ack_claim: a JSON array of [id, "queue", "lease_id"]. */
    private static Map<Long, Acked> parseAcked(String json) {
        Map<Long, Acked> out = new HashMap<>();
        if (json == null) {
            return out;
        }
        try {
            for (com.fasterxml.jackson.databind.JsonNode pair : Json.mapper().readTree(json)) {
                out.put(pair.get(0).asLong(), new Acked(pair.get(1).asText(),
                        pair.get(2).asText().toLowerCase(Locale.ROOT)));
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("job_ack_claim answered acked=" + json, e);
        }
        return out;
    }

    private List<JobRow> claimed(List<JobRow> rows) {
        churn.addAndGet(rows.size());
        List<JobRow> claimed = new ArrayList<>(rows);
        claimed.sort(CLAIM_ORDER);
        return claimed;
    }

    /** How long the list of capped queues is trusted; writes through this store refresh it at once. */
    private static final long CAPPED_TTL_NANOS = 1_000_000_000L;

    /** The capped queue names as last read, when (System.nanoTime), and after how many queue writes. */
    private record CappedQueues(java.util.Set<String> names, long readAt, long queueWrites) {
    }

    private volatile CappedQueues capped;
    private final java.util.concurrent.atomic.AtomicBoolean cappedReading = new java.util.concurrent.atomic.AtomicBoolean();
    private final Object cappedRefresh = new Object();
    /** Queue writes committed through this store: a list read before one of them is not trusted. */
    private final java.util.concurrent.atomic.AtomicLong queueWrites = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Whether a claim over {@code queues} (null = every queue) may reach a capped queue, by the
     * list of capped queues read at most a second ago. A queue capped on another instance within
     * that second is skipped by this instance's claims until the list is read again (it is not
     * claimed from at all meanwhile: the cap never loosens).
     */
    boolean cappedInScope(List<String> queues) {
        CappedQueues known = capped;
        long writes = queueWrites.get();
        if (known == null || known.queueWrites() != writes) {
            // No list yet, or a queue write here since: every claim needs a fresh one, and the
            // claims that start together share one read (not one each, on a cold start).
            synchronized (cappedRefresh) {
                known = capped;
                writes = queueWrites.get();
                if (known == null || known.queueWrites() != writes) {
                    known = readCapped(writes);
                }
            }
        } else if (System.nanoTime() - known.readAt() > CAPPED_TTL_NANOS && cappedReading.compareAndSet(false, true)) {
            // only old: one claim reads it, the others go by the old one meanwhile
            try {
                known = readCapped(writes);
            } finally {
                cappedReading.set(false);
            }
        }
        if (known.names().isEmpty()) {
            return false;
        }
        if (queues == null) {
            return true;
        }
        for (String q : queues) {
            if (known.names().contains(q)) {
                return true;
            }
        }
        return false;
    }

    private CappedQueues readCapped(long writes) {
        long readAt = System.nanoTime();
        List<String> names = oneStatement(c -> query(c, Stmt.QUEUE_LIST_CAPPED, Params.of(),
                (rs, cols) -> rs.getString(cols.get("name"))));
        CappedQueues known = new CappedQueues(java.util.Set.copyOf(names), readAt, writes);
        capped = known;
        return known;
    }

    @Override
    public Optional<JobRow> jobHeartbeat(long id, String leaseId, Integer leaseSeconds, String progress) {
        Params p = Params.of().lng("id", id).str("lease_id", leaseId)
                .integer("lease_seconds", leaseSeconds).str("progress", progress);
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_HEARTBEAT, p)));
    }

    @Override
    public Optional<JobRow> jobComplete(long id, String leaseId, String result, String by) {
        Params p = Params.of().lng("id", id).str("lease_id", leaseId).str("result", result).str("modified_by", by);
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_COMPLETE, p)));
    }

    @Override
    public java.util.Map<Long, Acked> jobCompleteMany(List<CompleteItem> items, String by) {
        Params p = Params.of().str("items", completeItemsJson(items)).str("modified_by", by);
        return oneStatement(c -> completeMany(c, p));
    }

    private Map<Long, Acked> completeMany(Connection c, Params p) throws SQLException {
        Map<Long, Acked> done = new HashMap<>();
        for (Object[] row : query(c, Stmt.JOB_COMPLETE_MANY, p, (rs, cols) -> new Object[] {rs.getLong(cols.get("id")),
                new Acked(rs.getString(cols.get("queue")), rs.getString(cols.get("lease_id")).toLowerCase(Locale.ROOT))})) {
            done.put((Long) row[0], (Acked) row[1]);
        }
        churn.addAndGet(done.size());
        return done;
    }

    /** Acknowledgements as job_complete_many and job_ack_claim read them: {"id", "lease_id", "result"}. */
    private static String completeItemsJson(List<CompleteItem> items) {
        java.io.StringWriter w = new java.io.StringWriter(items.size() * 90);
        try (com.fasterxml.jackson.core.JsonGenerator g = Json.mapper().getFactory().createGenerator(w)) {
            g.writeStartArray();
            for (CompleteItem i : items) {
                g.writeStartObject();
                g.writeNumberField("id", i.id());
                g.writeStringField("lease_id", i.leaseId());
                g.writeStringField("result", i.result());
                g.writeEndObject();
            }
            g.writeEndArray();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        return w.toString();
    }

    @Override
    public Optional<JobRow> jobCancelPending(long id, String by) {
        Params p = Params.of().lng("id", id).str("modified_by", by);
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_CANCEL_PENDING, p)));
    }

    @Override
    public Optional<JobRow> jobCancelRequest(long id, String by) {
        Params p = Params.of().lng("id", id).str("modified_by", by);
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_CANCEL_REQUEST, p)));
    }

    @Override
    public Optional<JobRow> jobCancelLeased(long id, String leaseId, String error, boolean expiredOnly, String by) {
        Params p = Params.of().lng("id", id).str("lease_id", leaseId).str("error", error)
                .bool("expired_only", expiredOnly).str("modified_by", by)
                .integer("keep_errors", KEEP_ERRORS);
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_CANCEL_LEASED, p)));
    }

    @Override
    public Optional<JobRow> jobRequeue(long id, String payload, String by) {
        Params p = Params.of().lng("id", id).str("payload", payload).str("modified_by", by);
        return tx(c -> {
            // a grouped job goes to the end of its group: take the group's lock first
            Optional<JobRow> job = single(queryJobs(c, Stmt.JOB_GET, Params.of().lng("id", id)));
            if (job.isPresent() && job.get().groupKey() != null) {
                lockGroup(c, job.get().queue(), job.get().groupKey());
            }
            return single(queryJobs(c, Stmt.JOB_REQUEUE, p));
        });
    }

    /**
     * Ordered groups: holds the group's lock until the transaction ends, so that the group's
     * jobs get their places (group_seq) in the order they become visible.
     */
    private void lockGroup(Connection c, String queue, String groupKey) throws SQLException {
        query(c, Stmt.JOB_GROUP_LOCK, Params.of().str("queue", queue).str("group_key", groupKey), (rs, cols) -> Boolean.TRUE);
    }

    @Override
    public boolean jobPurge(long id) {
        return oneStatement(c -> !query(c, Stmt.JOB_PURGE, Params.of().lng("id", id), (rs, cols) -> rs.getLong(1)).isEmpty());
    }

    @Override
    public List<JobRow> jobList(JobFilter f) {
        Params p = Params.of()
                .str("queue", f.queue())
                .str("type", f.type())
                .str("statuses", f.statuses() == null ? null : Json.write(f.statuses()))
                .str("tag", f.tag())
                .lng("after", f.after())
                .integer("limit", f.limit());
        return oneStatement(c -> queryJobs(c, Stmt.JOB_LIST, p));
    }

    @Override
    public List<JobRow> jobListDead(String queue, String type, Long after, int limit) {
        Params p = Params.of().str("queue", queue).str("type", type).lng("after", after).integer("limit", limit);
        return oneStatement(c -> queryJobs(c, Stmt.JOB_LIST_DEAD, p));
    }

    @Override
    public Throughput jobThroughput(String queue, int minutes) {
        Params p = Params.of().str("queue", queue).integer("minutes", minutes);
        return tx(c -> {
            Instant[] start = new Instant[1];
            List<Throughput.Count> counts = new ArrayList<>();
            query(c, Stmt.JOB_THROUGHPUT, p, (rs, cols) -> {
                start[0] = instant(rs, cols, "window_start");
                String q = str(rs, cols, "queue");
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
    public int archivePurgeOld(long olderThanMs, int limit) {
        return purgeOld(Stmt.ARCHIVE_PURGE_OLD, olderThanMs, limit);
    }

    @Override
    public int deadPurgeOld(long olderThanMs, int limit) {
        return purgeOld(Stmt.DEAD_PURGE_OLD, olderThanMs, limit);
    }

    private int purgeOld(Stmt stmt, long olderThanMs, int limit) {
        Params p = Params.of().lng("older_than_ms", olderThanMs).integer("limit", limit);
        return oneStatement(c -> query(c, stmt, p, (rs, cols) -> Boolean.TRUE).size());
    }

    @Override
    public Optional<JobRow> jobRetry(long id, String leaseId, long delayMs, String error, boolean expiredOnly,
                                     String by) {
        Params p = Params.of().lng("id", id).str("lease_id", leaseId).lng("delay_ms", delayMs)
                .str("error", error).bool("expired_only", expiredOnly).str("modified_by", by)
                .integer("keep_errors", KEEP_ERRORS);
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_RETRY, p)));
    }

    @Override
    public Optional<JobRow> jobKill(long id, String leaseId, String error, boolean expiredOnly, String by) {
        Params p = Params.of().lng("id", id).str("lease_id", leaseId)
                .str("error", error).bool("expired_only", expiredOnly).str("modified_by", by)
                .integer("keep_errors", KEEP_ERRORS);
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_KILL, p)));
    }

    @Override
    public Optional<JobRow> jobRelease(long id, String leaseId, String by) {
        Params p = Params.of().lng("id", id).str("lease_id", leaseId).str("modified_by", by);
        return oneStatement(c -> single(queryJobs(c, Stmt.JOB_RELEASE, p)));
    }

    @Override
    public ExpiredLeases jobListExpired(int limit) {
        return oneStatement(c -> {
            // one row per expired lease, or one row of NULL job columns; the times on every row
            Instant[] times = new Instant[2];
            List<JobRow> expired = new ArrayList<>();
            query(c, Stmt.JOB_LIST_EXPIRED, Params.of().integer("limit", limit), (rs, cols) -> {
                times[0] = instant(rs, cols, "next_expiry");
                times[1] = instant(rs, cols, "db_now");
                rs.getLong(cols.get("id"));
                if (!rs.wasNull()) {
                    expired.add(mapJob(rs, cols));
                }
                return Boolean.TRUE;
            });
            return new ExpiredLeases(expired, times[0], times[1]);
        });
    }

    @Override
    public QueueRow queueUpsert(QueueSettings s) {
        Params p = Params.of()
                .str("name", s.name())
                .integer("max_workers", s.maxWorkers())
                .bool("paused", s.paused())
                .bool("active", s.active())
                .integer("lease_seconds", s.leaseSeconds())
                .integer("max_attempts", s.maxAttempts())
                .lng("backoff_base_ms", s.backoffBaseMs())
                .lng("backoff_cap_ms", s.backoffCapMs())
                .str("webhook_url", s.webhookUrl())
                .integer("rate_limit", s.rateLimit())
                .lng("rate_period_ms", s.ratePeriodMs());
        return writeQueue(Stmt.QUEUE_UPSERT, p, s.name());
    }

    /**
     * Runs a queue write, commits it, then reads the row back with its counts in a read of its
     * own: the write's lock on the queue row is never held while the queue's jobs are read
     * (which would wait behind acks and claims of that queue, and they behind the row).
     */
    private QueueRow writeQueue(Stmt write, Params p, String name) {
        try {
            tx(c -> query(c, write, p, (rs, cols) -> Boolean.TRUE));
        } finally {
            queueWrites.incrementAndGet();  // committed (or not): claims read the capped queues again
        }
        return oneStatement(c -> single(query(c, Stmt.QUEUE_GET, Params.of().str("name", name), this::mapQueue)))
                .orElseThrow(() -> new StoreException(StoreException.Kind.OTHER,
                        "queue row " + name + " missing right after " + write, null));
    }

    @Override
    public Optional<QueueRow> queueGet(String name) {
        return oneStatement(c -> single(query(c, Stmt.QUEUE_GET, Params.of().str("name", name), this::mapQueue)));
    }

    @Override
    public List<QueueRow> queueList(boolean includeInactive) {
        return oneStatement(c -> query(c, Stmt.QUEUE_LIST, Params.of().bool("include_inactive", includeInactive), this::mapQueue));
    }

    @Override
    public QueueRow queueSetPaused(String name, boolean paused) {
        return writeQueue(Stmt.QUEUE_SET_PAUSED, Params.of().str("name", name).bool("paused", paused), name);
    }

    @Override
    public List<String> queueFind(List<String> names) {
        Params p = Params.of().str("queues", Json.write(names));
        return oneStatement(c -> query(c, Stmt.QUEUE_FIND, p, (rs, cols) -> rs.getString(cols.get("name"))));
    }

    @Override
    public List<DueQueue> jobAnyDue(List<String> queues) {
        Params p = Params.of().str("queues", queues == null ? null : Json.write(queues));
        return oneStatement(c -> query(c, Stmt.JOB_ANY_DUE, p, (rs, cols) -> new DueQueue(
                rs.getString(cols.get("name")), rs.getBoolean(cols.get("due_now")),
                instant(rs, cols, "next_due_at"), instant(rs, cols, "db_now"))));
    }

    @Override
    public List<StoredKey> apiKeyList() {
        return oneStatement(c -> query(c, Stmt.API_KEY_LIST, Params.of(), (rs, cols) -> new StoredKey(
                str(rs, cols, "name"), str(rs, cols, "roles"), str(rs, cols, "digest").strip(),
                str(rs, cols, "queues"), str(rs, cols, "origin"), str(rs, cols, "created_by"),
                instant(rs, cols, "created_at"))));
    }

    @Override
    public boolean apiKeyInsert(StoredKey key) {
        Params p = Params.of().str("name", key.name()).str("roles", key.roles()).str("digest", key.digest())
                .str("queues", key.queues()).str("origin", key.origin()).str("created_by", key.createdBy());
        return oneStatement(c -> !query(c, Stmt.API_KEY_INSERT, p, (rs, cols) -> rs.getString(1)).isEmpty());
    }

    @Override
    public boolean apiKeyDelete(String name) {
        return tx(c -> !query(c, Stmt.API_KEY_DELETE, Params.of().str("name", name), (rs, cols) -> rs.getString(1))
                .isEmpty());
    }

    // ---- recurring schedules ---------------------------------------------------------------

    @Override
    public Instant dbNow() {
        return oneStatement(c -> single(query(c, Stmt.DB_NOW, Params.of(), (rs, cols) -> instant(rs, cols, "now"))))
                .orElseThrow(() -> new IllegalStateException("the database returned no time"));
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
        return oneStatement(c -> single(query(c, Stmt.SCHEDULE_UPSERT, p, this::mapSchedule)))
                .orElseThrow(() -> new IllegalStateException("schedule row missing after upsert"));
    }

    @Override
    public Optional<ScheduleRow> scheduleGet(String name) {
        return oneStatement(c -> single(query(c, Stmt.SCHEDULE_GET, Params.of().str("name", name), this::mapSchedule)));
    }

    @Override
    public List<ScheduleRow> scheduleList(String after, int limit) {
        Params p = Params.of().str("after", after).integer("limit", limit);
        return oneStatement(c -> query(c, Stmt.SCHEDULE_LIST, p, this::mapSchedule));
    }

    @Override
    public boolean scheduleDelete(String name) {
        return oneStatement(c -> !query(c, Stmt.SCHEDULE_DELETE, Params.of().str("name", name), (rs, cols) -> rs.getString(1))
                .isEmpty());
    }

    @Override
    public Optional<ScheduleRow> scheduleSetPaused(String name, boolean paused, Instant nextFireAt) {
        Params p = Params.of().str("name", name).bool("paused", paused).time("next_fire_at", nextFireAt);
        return oneStatement(c -> single(query(c, Stmt.SCHEDULE_SET_PAUSED, p, this::mapSchedule)));
    }

    @Override
    public List<String> scheduleListDue(int limit) {
        return oneStatement(c -> query(c, Stmt.SCHEDULE_LIST_DUE, Params.of().integer("limit", limit),
                (rs, cols) -> rs.getString(cols.get("name"))));
    }

    @Override
    public Optional<ScheduleRow.Fired> scheduleFire(String name,
                                                    java.util.function.Function<ScheduleRow.Due, ScheduleRow.FirePlan> planner,
                                                    int defaultMaxAttempts) {
        return tx(c -> {
            Optional<ScheduleRow.Due> locked = single(query(c, Stmt.SCHEDULE_LOCK_DUE, Params.of().str("name", name),
                    (rs, cols) -> new ScheduleRow.Due(mapSchedule(rs, cols), instant(rs, cols, "db_now"),
                            rs.getBoolean(cols.get("last_job_live")))));
            if (locked.isEmpty()) {
                return Optional.<ScheduleRow.Fired>empty();
            }
            ScheduleRow s = locked.get().schedule();
            ScheduleRow.FirePlan plan = planner.apply(locked.get());
            boolean previousLive = locked.get().lastJobLive();
            List<JobRow> jobs = new ArrayList<>();
            int skipped = 0;
            Instant lastSlot = null;
            Long lastJob = null;
            for (Instant slot : plan.slots()) {
                boolean skip = "SKIP".equals(s.overlap()) && previousLive;
                Params fire = Params.of().str("schedule_name", name).time("slot_at", slot).integer("outcome", skip ? 2 : 1);
                if (query(c, Stmt.SCHEDULE_FIRE_INSERT, fire, (rs, cols) -> Boolean.TRUE).isEmpty()) {
                    continue; // recorded before: this slot has fired already
                }
                lastSlot = slot;
                if (skip) {
                    skipped++;
                    continue;
                }
                NewJob job = new NewJob(s.queue(), s.type(), s.payload(), s.tags(), null, s.priority(), s.maxAttempts(),
                        defaultMaxAttempts, slot, 0, "schedule:" + name, null, null, null, 0, null);
                JobRow row = single(queryJobs(c, Stmt.JOB_INSERT, insertParams(job)))
                        .orElseThrow(() -> new IllegalStateException("scheduled job was not inserted"));
                query(c, Stmt.SCHEDULE_FIRE_SET_JOB, Params.of().str("schedule_name", name).time("slot_at", slot)
                        .lng("job_id", row.id()), (rs, cols) -> Boolean.TRUE);
                jobs.add(row);
                lastJob = row.id();
                previousLive = true;
            }
            query(c, Stmt.SCHEDULE_ADVANCE, Params.of().str("name", name).time("next_fire_at", plan.next())
                    .time("last_fire_at", lastSlot).lng("last_job_id", lastJob), (rs, cols) -> Boolean.TRUE);
            return Optional.of(new ScheduleRow.Fired(jobs, skipped));
        });
    }

    @Override
    public NextTimes featureNextTimes() {
        return oneStatement(c -> single(query(c, Stmt.FEATURE_NEXT_TIMES, Params.of(),
                (rs, cols) -> new NextTimes(instant(rs, cols, "next_fire_at"), instant(rs, cols, "next_expiry"),
                        instant(rs, cols, "next_delivery"), instant(rs, cols, "db_now")))))
                .orElseThrow(() -> new IllegalStateException("feature_next_times returned no row"));
    }

    private ScheduleRow mapSchedule(ResultSet rs, Map<String, Integer> cols) throws SQLException {
        return new ScheduleRow(
                str(rs, cols, "name"),
                str(rs, cols, "cron"),
                str(rs, cols, "time_zone"),
                str(rs, cols, "queue"),
                str(rs, cols, "type"),
                str(rs, cols, "payload"),
                str(rs, cols, "tags"),
                intOr(rs, cols, "priority", 0),
                integer(rs, cols, "max_attempts"),
                str(rs, cols, "overlap"),
                str(rs, cols, "catch_up"),
                rs.getBoolean(cols.get("paused")),
                instant(rs, cols, "next_fire_at"),
                instant(rs, cols, "last_fire_at"),
                lng(rs, cols, "last_job_id"),
                str(rs, cols, "created_by"),
                str(rs, cols, "modified_by"),
                instant(rs, cols, "created_at"),
                instant(rs, cols, "updated_at"));
    }

    // ---- completion webhooks (outbox) ------------------------------------------------------

    @Override
    public List<WebhookRow> webhookClaim(int limit, int leaseSeconds) {
        Params p = Params.of().integer("limit", limit).integer("lease_seconds", leaseSeconds);
        return oneStatement(c -> query(c, Stmt.WEBHOOK_CLAIM, p, this::mapWebhook));
    }

    @Override
    public boolean webhookDelivered(long seq, String leaseId, int statusCode) {
        Params p = Params.of().lng("id", seq).str("lease_id", leaseId).integer("status_code", statusCode);
        return oneStatement(c -> !query(c, Stmt.WEBHOOK_DELIVERED, p, (rs, cols) -> Boolean.TRUE).isEmpty());
    }

    @Override
    public Optional<Instant> webhookFailed(long seq, String leaseId, Integer statusCode, String error, long delayMs,
                                           boolean dead) {
        Params p = Params.of().lng("id", seq).str("lease_id", leaseId).integer("status_code", statusCode)
                .str("error", error).lng("delay_ms", delayMs).bool("dead", dead);
        return oneStatement(c -> single(query(c, Stmt.WEBHOOK_FAILED, p, (rs, cols) -> instant(rs, cols, "due_at"))));
    }

    @Override
    public List<WebhookRow> webhookList(Integer status, Long after, int limit) {
        Params p = Params.of().integer("status", status).lng("after", after).integer("limit", limit);
        return oneStatement(c -> query(c, Stmt.WEBHOOK_LIST, p, this::mapWebhook));
    }

    @Override
    public Optional<WebhookRow> webhookGet(String deliveryId) {
        return oneStatement(c -> single(query(c, Stmt.WEBHOOK_GET, Params.of().str("delivery_id", deliveryId), this::mapWebhook)));
    }

    @Override
    public Optional<WebhookRow> webhookRetry(String deliveryId) {
        return oneStatement(c -> single(query(c, Stmt.WEBHOOK_RETRY, Params.of().str("delivery_id", deliveryId), this::mapWebhook)));
    }


    private WebhookRow mapWebhook(ResultSet rs, Map<String, Integer> cols) throws SQLException {
        String delivery = str(rs, cols, "delivery_id");
        String lease = str(rs, cols, "lease_id");
        return new WebhookRow(
                rs.getLong(cols.get("id")),
                delivery == null ? null : delivery.toLowerCase(Locale.ROOT),
                rs.getLong(cols.get("job_id")),
                str(rs, cols, "queue"),
                str(rs, cols, "event"),
                str(rs, cols, "url"),
                intOr(rs, cols, "status", 0),
                intOr(rs, cols, "attempt", 0),
                instant(rs, cols, "due_at"),
                lease == null ? null : lease.toLowerCase(Locale.ROOT),
                integer(rs, cols, "last_status"),
                str(rs, cols, "last_error"),
                instant(rs, cols, "created_at"),
                instant(rs, cols, "updated_at"),
                instant(rs, cols, "delivered_at"));
    }

    // ---- expiresAt and uniqueFor ---------------------------------------------------------------

    @Override
    public List<String> jobExpirePending(int limit) {
        return oneStatement(c -> query(c, Stmt.JOB_EXPIRE_PENDING, Params.of().integer("limit", limit),
                (rs, cols) -> rs.getString(cols.get("queue"))));
    }

    @Override
    public int[] housekeepingPurge(long fireOlderThanMs, long deliveredOlderThanMs, long deadOlderThanMs, int limit) {
        Params p = Params.of().lng("fire_older_than_ms", fireOlderThanMs)
                .lng("delivered_older_than_ms", deliveredOlderThanMs).lng("dead_older_than_ms", deadOlderThanMs)
                .integer("limit", limit);
        return oneStatement(c -> single(query(c, Stmt.HOUSEKEEPING_PURGE, p, (rs, cols) -> new int[] {
                rs.getInt(cols.get("fires")), rs.getInt(cols.get("unique_keys")), rs.getInt(cols.get("webhooks"))})))
                .orElse(new int[3]);
    }

    // ---- plumbing --------------------------------------------------------------------------

    /** Work done inside one transaction. */
    @FunctionalInterface
    interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    /** Maps the current row of a result set, given its column indexes by lower-case label. */
    @FunctionalInterface
    interface RowMapper<T> {
        T map(ResultSet rs, Map<String, Integer> columns) throws SQLException;
    }

    <T> T tx(SqlWork<T> work) {
        return run(work, false);
    }

    /**
     * Work that is a single statement: on PostgreSQL it runs in autocommit (one round trip, no
     * COMMIT of its own; the statement is atomic by itself). SQL Server batches may hold several
     * statements, so there it is a transaction like {@link #tx}.
     */
    <T> T oneStatement(SqlWork<T> work) {
        return run(work, dialect.singleStatementAutocommit());
    }

    /** Runs the work on a pooled connection, retrying transient failures with jittered backoff. */
    private <T> T run(SqlWork<T> work, boolean autocommit) {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(autocommit);
                if (autocommit) {
                    return work.run(c);
                }
                try {
                    T result = work.run(c);
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                StoreException.Kind kind = dialect.classify(e);
                if (kind == StoreException.Kind.TRANSIENT) {
                    transientFailures.incrementAndGet();
                    LOG.debugf("Transient failure (try %d): %s", attempt, e.getMessage());
                }
                if (kind == StoreException.Kind.TRANSIENT && attempt < MAX_TRIES) {
                    sleepBackoff(attempt);
                    continue;
                }
                if (kind == StoreException.Kind.TRANSIENT) {
                    LOG.warnf("Giving up after %d transient failures: %s", attempt, e.getMessage());
                }
                throw new StoreException(kind, e.getMessage(), e);
            }
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool will discard it
        }
    }

    private static void sleepBackoff(int attempt) {
        long cap = Math.min(200, 10L << attempt);
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, cap + 1));
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new StoreException(StoreException.Kind.UNAVAILABLE, "interrupted", ie);
        }
    }

    private List<JobRow> queryJobs(Connection c, Stmt stmt, Params params) throws SQLException {
        return query(c, stmt, params, this::mapJob);
    }

    /**
     * Runs a statement and maps its first result set. With SQL Server batches, further results
     * are stepped through too, because errors can surface only there.
     */
    <T> List<T> query(Connection c, Stmt stmt, Params params, RowMapper<T> mapper) throws SQLException {
        SqlStatement s = catalog.get(stmt);
        statements.get(stmt).incrementAndGet();
        try (PreparedStatement ps = c.prepareStatement(s.jdbcSql())) {
            bind(ps, s, params);
            List<T> out = new ArrayList<>();
            boolean haveResultSet = ps.execute();
            boolean read = false;
            int toSkip = s.leadingResults(); // a preamble's results come first
            while (true) {
                if (haveResultSet) {
                    try (ResultSet rs = ps.getResultSet()) {
                        if (toSkip > 0) {
                            toSkip--;
                        } else if (!read) {
                            Map<String, Integer> cols = columns(rs.getMetaData());
                            while (rs.next()) {
                                out.add(mapper.map(rs, cols));
                            }
                            read = true;
                        }
                    }
                } else if (ps.getUpdateCount() == -1) {
                    break;
                }
                haveResultSet = ps.getMoreResults();
            }
            return out;
        }
    }

    private void bind(PreparedStatement ps, SqlStatement s, Params params) throws SQLException {
        List<String> order = s.parameterOrder();
        for (int i = 0; i < order.size(); i++) {
            String name = order.get(i);
            Params.Value v = params.get(name);
            if (v == null) {
                throw new IllegalArgumentException("Statement " + s.name() + " needs parameter '" + name + "'");
            }
            int index = i + 1;
            Object value = v.value();
            if (v.sqlType() == Params.INSTANT) {
                dialect.bindInstant(ps, index, (Instant) value);
            } else if (value == null) {
                ps.setNull(index, v.sqlType() == Types.NVARCHAR ? dialect.nullStringType() : v.sqlType());
            } else if (value instanceof String str) {
                ps.setString(index, str);
            } else if (value instanceof Integer n) {
                ps.setInt(index, n);
            } else if (value instanceof Long n) {
                ps.setLong(index, n);
            } else if (value instanceof Boolean b) {
                ps.setBoolean(index, b);
            } else {
                throw new IllegalArgumentException("Unsupported parameter type " + value.getClass());
            }
        }
    }

    private static Map<String, Integer> columns(ResultSetMetaData md) throws SQLException {
        Map<String, Integer> cols = new HashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            cols.putIfAbsent(md.getColumnLabel(i).toLowerCase(Locale.ROOT), i);
        }
        return cols;
    }

    private JobRow mapJob(ResultSet rs, Map<String, Integer> cols) throws SQLException {
        String leaseId = str(rs, cols, "lease_id");
        return new JobRow(
                rs.getLong(cols.get("id")),
                str(rs, cols, "queue"),
                str(rs, cols, "type"),
                str(rs, cols, "payload"),
                str(rs, cols, "tags"),
                str(rs, cols, "idempotency_key"),
                intOr(rs, cols, "priority", 0),
                intOr(rs, cols, "status", 0),
                intOr(rs, cols, "attempt", 0),
                intOr(rs, cols, "max_attempts", 0),
                instant(rs, cols, "due_at"),
                str(rs, cols, "worker_id"),
                leaseId == null ? null : leaseId.toLowerCase(Locale.ROOT),
                integer(rs, cols, "lease_seconds"),
                instant(rs, cols, "lease_expires_at"),
                instant(rs, cols, "heartbeat_at"),
                str(rs, cols, "progress"),
                cols.containsKey("cancel_requested") && rs.getBoolean(cols.get("cancel_requested")),
                str(rs, cols, "last_error"),
                str(rs, cols, "errors"),
                str(rs, cols, "result"),
                str(rs, cols, "created_by"),
                str(rs, cols, "modified_by"),
                instant(rs, cols, "created_at"),
                instant(rs, cols, "started_at"),
                instant(rs, cols, "updated_at"),
                instant(rs, cols, "finished_at"),
                lng(rs, cols, "backoff_base_ms"),
                lng(rs, cols, "backoff_cap_ms"),
                str(rs, cols, "webhook_url"),
                instant(rs, cols, "expires_at"),
                str(rs, cols, "group_key"));
    }

    private QueueRow mapQueue(ResultSet rs, Map<String, Integer> cols) throws SQLException {
        QueueRow.Counts counts = cols.containsKey("pending_count")
                ? new QueueRow.Counts(
                        rs.getLong(cols.get("pending_count")),
                        rs.getLong(cols.get("scheduled_count")),
                        rs.getLong(cols.get("leased_count")),
                        rs.getLong(cols.get("processing_count")),
                        rs.getLong(cols.get("dead_count")),
                        instant(rs, cols, "oldest_due_at"),
                        dbl(rs, cols, "lag_seconds"))
                : null;
        return new QueueRow(
                str(rs, cols, "name"),
                integer(rs, cols, "max_workers"),
                rs.getBoolean(cols.get("paused")),
                rs.getBoolean(cols.get("active")),
                integer(rs, cols, "lease_seconds"),
                integer(rs, cols, "max_attempts"),
                lng(rs, cols, "backoff_base_ms"),
                lng(rs, cols, "backoff_cap_ms"),
                instant(rs, cols, "created_at"),
                instant(rs, cols, "updated_at"),
                counts,
                str(rs, cols, "webhook_url"),
                integer(rs, cols, "rate_limit"),
                lng(rs, cols, "rate_period_ms"));
    }

    private static String str(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        return i == null ? null : rs.getString(i);
    }

    private static int intOr(ResultSet rs, Map<String, Integer> cols, String name, int dflt) throws SQLException {
        Integer v = integer(rs, cols, name);
        return v == null ? dflt : v;
    }

    private static Integer integer(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        if (i == null) {
            return null;
        }
        int v = rs.getInt(i);
        return rs.wasNull() ? null : v;
    }

    private static Long lng(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        if (i == null) {
            return null;
        }
        long v = rs.getLong(i);
        return rs.wasNull() ? null : v;
    }

    private static Double dbl(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        if (i == null) {
            return null;
        }
        double v = rs.getDouble(i);
        return rs.wasNull() ? null : v;
    }

    private Instant instant(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        return i == null ? null : dialect.readInstant(rs, i);
    }

    private static <T> Optional<T> single(List<T> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }
}
