package io.readpast.store.jdbc;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.readpast.store.ClaimParams;
import io.readpast.store.CompleteItem;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore.AckClaimed;
import io.readpast.store.JobStore.Acked;
import io.readpast.store.Json;
import io.readpast.store.Params;
import io.readpast.store.Stmt;

import java.io.IOException;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Claims and acknowledgements. A claim that can reach no capped queue is one statement; one that
 * can locks the capped queues' rows first (skipping those other claimers hold), in a statement
 * of its own, so that the claim's snapshot sees every lease committed before the lock was
 * granted, and counts rate-limited claims while the rows are still locked.
 */
final class ClaimPath {

    /** Claim order: priority (higher first), then due time, then id. */
    private static final Comparator<JobRow> CLAIM_ORDER = Comparator
            .comparingInt(JobRow::priority).reversed()
            .thenComparing(JobRow::dueAt)
            .thenComparingLong(JobRow::id);

    private final SqlRunner sql;
    private final ClaimGate gate;
    private final CappedQueues capped;
    private final Settlement settlement;
    /** Jobs claimed or acknowledged in batches: each leaves a dead row version in the hot table. */
    private final AtomicLong churn = new AtomicLong();
    /** How long a claim tries again while a capped queue in scope is held by another claim. */
    static final long CONTENDED_RETRY_NANOS = 100_000_000L;
    private final AtomicLong contendedRetries = new AtomicLong();

    ClaimPath(SqlRunner sql, ClaimGate gate, CappedQueues capped, Settlement settlement) {
        this.sql = sql;
        this.settlement = settlement;
        this.gate = gate;
        this.capped = capped;
    }

    /** The tries again of claims that met a capped queue's row held by another claim. */
    long contendedRetries() {
        return contendedRetries.get();
    }

    long churn() {
        return churn.get();
    }

    List<JobRow> claim(ClaimParams claim) {
        return claimMany(List.of(claim)).get(0);
    }

    AckClaimed ackClaim(List<CompleteItem> acks, ClaimParams claim) {
        return ackClaimMany(List.of(acks), List.of(claim)).get(0);
    }

    /**
     * Claims merged into one statement (readpast.merging.claims): they share queues, types and
     * key; each has its worker, limit and lease length. The statement takes the sum of their
     * limits and gives each its slice of the ranked rows (the first claim the best ones); caps,
     * rate limits, fairness and groups hold because the statement enforces them on the whole.
     * One list of claimed jobs per claim, in claim order.
     */
    List<List<JobRow>> claimMany(List<ClaimParams> claims) {
        return claimSlices(claims).claimed();
    }

    /** {@link #claimMany}, its claims' slices as they ended (what each got, and whether a held queue cut it short). */
    private Slices claimSlices(List<ClaimParams> claims) {
        ClaimParams first = claims.get(0);
        String queuesJson = first.queues() == null ? null : Json.write(first.queues());
        Slices slices = new Slices(claims);
        Params p = claimParams(first, queuesJson);
        if (!capped.inScope(first.queues())) {
            // No capped queue in scope: the claim alone, one statement (one round trip on
            // PostgreSQL). Locking nothing, it leaves capped queues alone even if one was capped
            // a moment ago elsewhere, so the cap holds whatever the cache says.
            p.str("locked_queues", "[]");
            return gate.run(() -> sql.repeatableStatement(c -> {
                slices.forget(); // a try after a failover starts afresh: what it read before may not have committed
                slices.take(c, Stmt.JOB_CLAIM, p);
                return slices;
            }));
        }
        String fairOnly = capped.onlyFairFree(first.queues());
        if (fairOnly != null) {
            // a fair queue with round-robin alone, and nothing else in scope: job_claim_fair
            // alone, one statement (it takes no queue lock, and no plain queue is reachable)
            return gate.run(() -> sql.repeatableStatement(c -> {
                slices.forget();
                slices.take(c, Stmt.JOB_CLAIM_FAIR, p.str("queue", fairOnly).bool("locked", false));
                return slices;
            }));
        }
        List<String> fairFree = capped.fairFree(first.queues());
        claimLockedUntilServed(p, queuesJson, slices, fairFree);
        return slices;
    }

    /**
     * Ack-and-claims merged into one statement, as {@link #claimMany}: every claim's acks go
     * together (the claims share their key, recorded as modified_by on both), and each claim is
     * answered with the acks done (the same map for all: each reads its own items from it) and
     * its slice of the claimed jobs.
     */
    List<AckClaimed> ackClaimMany(List<List<CompleteItem>> ackLists, List<ClaimParams> claims) {
        ClaimParams first = claims.get(0);
        List<CompleteItem> acks = new ArrayList<>();
        ackLists.forEach(acks::addAll);
        if (acks.isEmpty()) {
            return claimSlices(claims).answers(Map.of());
        }
        String queuesJson = first.queues() == null ? null : Json.write(first.queues());
        Slices slices = new Slices(claims);
        Params p = claimParams(first, queuesJson);
        Map<Long, Acked> acked;
        if (capped.inScope(first.queues())) {
            // the acks commit first, in a transaction of their own: the claim's queue lock is
            // never taken while this transaction still holds the acked rows (two ack-and-claims
            // on one capped queue would otherwise wait for each other's deletes, and deadlock)
            acked = completeMany(acks, first.by());
            String fairOnly = capped.onlyFairFree(first.queues());
            if (fairOnly != null) {
                gate.run(() -> sql.oneStatement(c -> {
                    slices.take(c, Stmt.JOB_CLAIM_FAIR, p.str("queue", fairOnly).bool("locked", false));
                    return null;
                }));
            } else {
                claimLockedUntilServed(p, queuesJson, slices, capped.fairFree(first.queues()));
            }
        } else {
            p.str("items", itemsJson(acks)).bool("linked", false).str("claimers", slices.json())
                    .integer("limit", slices.remaining());
            Map<Long, Acked> fast = gate.run(() -> sql.oneStatement(c -> {
                // one row per claimed job (or one row of nulls), the acked jobs on the first row
                String[] ackedJson = new String[1];
                sql.query(c, Stmt.JOB_ACK_CLAIM, p, (rs, cols) -> {
                    String a = rs.getString(cols.get("acked"));
                    if (a != null) {
                        ackedJson[0] = a;
                    }
                    rs.getLong(cols.get("id"));
                    if (!rs.wasNull()) {
                        slices.row(rs, cols);
                    }
                    return Boolean.TRUE;
                });
                Map<Long, Acked> ackedJobs = parseAcked(ackedJson[0]);
                churn.addAndGet(ackedJobs.size());
                return ackedJobs;
            }));
            // jobs of a batch, or with dependents, were left alone: completed now, with their settling
            acked = completeLinked(acks, first.by(), fast, this::completeMany);
        }
        return slices.answers(acked);
    }

    /**
     * The claims of one statement and what each still wants: each statement is given
     * {@link #json} (a slice lo+1..hi of its ranked rows per claim that wants more) and
     * {@link #remaining} as its limit; the rows it returns, each with its claim's index, go to
     * their claims.
     */
    private final class Slices {
        private final List<ClaimParams> claims;
        private final int[] wanted;
        private final List<List<JobRow>> rows;
        /** The last try met a capped queue with room and due work whose row another claim held. */
        private boolean contended;

        Slices(List<ClaimParams> claims) {
            this.claims = claims;
            this.wanted = new int[claims.size()];
            this.rows = new ArrayList<>(claims.size());
            for (int i = 0; i < claims.size(); i++) {
                wanted[i] = claims.get(i).limit();
                rows.add(new ArrayList<>());
            }
        }

        /** Back to nothing claimed. */
        void forget() {
            for (int i = 0; i < claims.size(); i++) {
                wanted[i] = claims.get(i).limit();
                rows.get(i).clear();
            }
        }

        int remaining() {
            int n = 0;
            for (int w : wanted) {
                n += w;
            }
            return n;
        }

        /** The claims that want more: {"n", "worker_id", "lease_seconds", "lo", "hi"}. */
        String json() {
            StringWriter w = new StringWriter(claims.size() * 80);
            try (JsonGenerator g = Json.mapper().getFactory().createGenerator(w)) {
                g.writeStartArray();
                int at = 0;
                for (int i = 0; i < claims.size(); i++) {
                    if (wanted[i] <= 0) {
                        continue;
                    }
                    g.writeStartObject();
                    g.writeNumberField("n", i);
                    g.writeStringField("worker_id", claims.get(i).workerId());
                    if (claims.get(i).leaseSeconds() == null) {
                        g.writeNullField("lease_seconds");
                    } else {
                        g.writeNumberField("lease_seconds", claims.get(i).leaseSeconds());
                    }
                    g.writeNumberField("lo", at);
                    at += wanted[i];
                    g.writeNumberField("hi", at);
                    g.writeEndObject();
                }
                g.writeEndArray();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return w.toString();
        }

        /** Runs a claim statement for what the claims still want; its rows go to their claims. */
        void take(Connection c, Stmt stmt, Params p) throws SQLException {
            if (remaining() <= 0) {
                return;
            }
            p.str("claimers", json()).integer("limit", remaining());
            sql.query(c, stmt, p, (rs, cols) -> {
                row(rs, cols);
                return Boolean.TRUE;
            });
        }

        /** A claimed row (with its claim's index, "claimer"), to its claim. */
        void row(java.sql.ResultSet rs, Map<String, Integer> cols) throws SQLException {
            int n = rs.getInt(cols.get("claimer"));
            rows.get(n).add(sql.rows().job(rs, cols));
            wanted[n]--;
        }

        /** Every claim's jobs, each list in claim order. */
        List<List<JobRow>> claimed() {
            List<List<JobRow>> out = new ArrayList<>(rows.size());
            for (List<JobRow> r : rows) {
                out.add(ClaimPath.this.claimed(r));
            }
            return out;
        }

        /**
         * One answer per claim: {@code acked}, its jobs, and whether a held queue may have cut
         * it short (it still wanted jobs when the claim gave up on a capped queue held by
         * another claim: a long-poll claims again rather than wait for new work).
         */
        List<AckClaimed> answers(Map<Long, Acked> acked) {
            List<List<JobRow>> claimed = claimed();
            List<AckClaimed> out = new ArrayList<>(claimed.size());
            for (int i = 0; i < claimed.size(); i++) {
                out.add(new AckClaimed(acked, claimed.get(i), contended && wanted[i] > 0));
            }
            return out;
        }

        /** All rows claimed so far, of every claim. */
        List<JobRow> all() {
            List<JobRow> out = new ArrayList<>();
            rows.forEach(out::addAll);
            return out;
        }
    }

    Map<Long, Acked> completeMany(List<CompleteItem> items, String by) {
        Params p = Params.of().str("items", itemsJson(items)).str("modified_by", by).bool("linked", false);
        return completeLinked(items, by, sql.oneStatement(c -> completeMany(c, p, null)), this::completeMany);
    }

    /**
     * job_complete_rows: the jobs of {@code items} whose leases are held, completed, as SUCCEEDED
     * by id. Jobs in no batch and with no dependents go in one statement; the items it did not
     * complete go again in one transaction that also settles their batches and dependents, so
     * that merged completions of one batch's jobs take its row once, not once each (review
     * round 2, N8). An item whose lease is simply not held costs this one more look.
     */
    Map<Long, JobRow> completeRows(List<CompleteItem> items, String by) {
        Params p = Params.of().str("items", itemsJson(items)).str("modified_by", by).bool("linked", false);
        return completeLinked(items, by, sql.oneStatement(c -> completeRows(c, p, null)), this::completeRows);
    }

    /**
     * The items {@code done} does not hold, completed in a transaction that also settles their
     * batches and dependents ({@code statement}, job_complete_many or job_complete_rows, with
     * linked jobs taken): the fast statements leave such jobs alone. An item whose lease is simply not held costs this one more look.
     */
    private <R> Map<Long, R> completeLinked(List<CompleteItem> items, String by, Map<Long, R> done,
                                            LinkedCompletion<R> statement) {
        List<CompleteItem> rest = new ArrayList<>();
        for (CompleteItem i : items) {
            if (!done.containsKey(i.id())) {
                rest.add(i);
            }
        }
        if (rest.isEmpty()) {
            return done;
        }
        Params p = Params.of().str("items", itemsJson(rest)).str("modified_by", by).bool("linked", true);
        Settlement.Released[] released = new Settlement.Released[1];
        Map<Long, R> more = sql.tx(c -> {
            List<Settlement.Moved> moved = new ArrayList<>();
            Map<Long, R> completed = statement.run(c, p, moved);
            released[0] = settlement.settle(c, moved);
            return completed;
        });
        settlement.announce(released[0]);
        if (more.isEmpty()) {
            return done;
        }
        Map<Long, R> all = new HashMap<>(done);
        all.putAll(more);
        return all;
    }

    /** What the claims of one statement share (queues, types, key); {@link Slices} adds the rest. */
    private static Params claimParams(ClaimParams claim, String queuesJson) {
        return Params.of()
                .str("queues", queuesJson)
                .str("types", claim.types() == null ? null : Json.write(claim.types()))
                .integer("default_lease_seconds", claim.defaultLeaseSeconds())
                .str("modified_by", claim.by())
                // SQL Server: the claim statement begins its transaction, so it runs the claim's
                // prelude (the due promotion) and commits it first (claimLocked: no)
                .bool("prelude", true);
    }

    /**
     * The claim when a capped (or fair) queue may be in scope, inside the caller's transaction:
     * the rows of the queues with limits locked first; each fair queue claimed by job_claim_fair
     * (those locked, then {@code fairFree}, the ones with round-robin alone, which need no
     * lock), in name order; then the other queues by job_claim with what is left of the limit.
     */
    private boolean claimLocked(Connection c, Params p, String queuesJson, Slices slices, List<String> fairFree)
            throws SQLException {
        List<String> locked = new ArrayList<>();
        List<String> fair = new ArrayList<>();
        Set<String> rateLimited = new HashSet<>();
        // on SQL Server queue_lock_capped runs the claim's prelude (the due promotion, up
        // to the claim's limit) and commits it before it locks the queue rows; the claims that
        // follow in this transaction skip it (review round 2, N2)
        p.bool("prelude", false);
        boolean[] contended = new boolean[1];
        sql.query(c, Stmt.QUEUE_LOCK_CAPPED, Params.of().str("queues", queuesJson)
                .integer("limit", Math.max(1, slices.remaining())), (rs, cols) -> {
            String name = rs.getString(cols.get("name"));
            if (!rs.getBoolean(cols.get("locked"))) {
                // room and due work, but another transaction holds its row (a claim there)
                contended[0] = true;
                return Boolean.TRUE;
            }
            if (rs.getBoolean(cols.get("fair"))) {
                fair.add(name);
            } else {
                locked.add(name);
            }
            if (rs.getBoolean(cols.get("rate_limited"))) {
                rateLimited.add(name);
            }
            return Boolean.TRUE;
        });
        List<String> fairLocked = List.copyOf(fair);
        for (String queue : fairFree) {
            if (!fair.contains(queue)) {
                fair.add(queue);
            }
        }
        for (String queue : fair) {
            slices.take(c, Stmt.JOB_CLAIM_FAIR, p.str("queue", queue).bool("locked", fairLocked.contains(queue)));
        }
        slices.take(c, Stmt.JOB_CLAIM, p.str("locked_queues", Json.write(locked)));
        if (!rateLimited.isEmpty()) {
            // Rate limits: count this claim in each rate-limited queue's window, in the same
            // transaction, while its row is still locked (the next claim there reads the count).
            Map<String, Integer> perQueue = new TreeMap<>();
            for (JobRow j : slices.all()) {
                if (rateLimited.contains(j.queue())) {
                    perQueue.merge(j.queue(), 1, Integer::sum);
                }
            }
            if (!perQueue.isEmpty()) {
                List<Map<String, Object>> counts = new ArrayList<>();
                perQueue.forEach((q, n) -> counts.add(Map.of("queue", q, "n", n)));
                sql.execute(c, Stmt.QUEUE_RATE_COUNT, Params.of().str("counts", Json.write(counts)));
            }
        }
        return contended[0];
    }

    /**
     * {@link #claimLocked} in transactions of its own, each through the claim gate, until the
     * claims have what they asked for, or no queue in scope with room and due work was held by
     * another claim, or {@link #CONTENDED_RETRY_NANOS} have passed: a claim that met a capped
     * queue's row held by a claim in progress (on this instance or another) tries again once
     * that one has likely committed, rather than answer nothing while the queue has room. The
     * pause between tries doubles from 0.2 ms to at most 8 ms, with jitter, and holds no gate
     * permit. The rows of each try are committed and kept; a holder that froze costs the claim
     * that much time, never a wait on its lock. A claim still short when the time is up says
     * so ({@link Slices#answers}): a long-poll tries again within its own wait.
     */
    private void claimLockedUntilServed(Params p, String queuesJson, Slices slices, List<String> fairFree) {
        long until = System.nanoTime() + CONTENDED_RETRY_NANOS;
        long pause = 200_000L;
        while (true) {
            slices.contended = gate.run(() -> sql.tx(c -> claimLocked(c, p, queuesJson, slices, fairFree)));
            if (!slices.contended || slices.remaining() <= 0 || System.nanoTime() >= until) {
                return;
            }
            contendedRetries.incrementAndGet();
            java.util.concurrent.locks.LockSupport.parkNanos(
                    pause / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(pause));
            pause = Math.min(pause * 2, 8_000_000L);
        }
    }

    /** A completing statement run with {@code p}: what it completed by id, the moved rows also into {@code moved} (null: not wanted). */
    @FunctionalInterface
    private interface LinkedCompletion<R> {
        Map<Long, R> run(Connection c, Params p, List<Settlement.Moved> moved) throws SQLException;
    }

    /** job_complete_rows: the completed jobs by id; the moved rows also into {@code moved} (null: not wanted). */
    private Map<Long, JobRow> completeRows(Connection c, Params p, List<Settlement.Moved> moved) throws SQLException {
        Map<Long, JobRow> done = new HashMap<>();
        for (JobRow r : sql.queryJobs(c, Stmt.JOB_COMPLETE_ROWS, p)) {
            done.put(r.id(), r);
            if (moved != null) {
                moved.add(Settlement.Moved.of(r));
            }
        }
        churn.addAndGet(done.size());
        return done;
    }

    /** job_complete_many; the moved rows also into {@code moved} (null: not wanted). */
    private Map<Long, Acked> completeMany(Connection c, Params p, List<Settlement.Moved> moved) throws SQLException {
        Map<Long, Acked> done = new HashMap<>();
        sql.query(c, Stmt.JOB_COMPLETE_MANY, p, (rs, cols) -> {
            long id = rs.getLong(cols.get("id"));
            String queue = rs.getString(cols.get("queue"));
            done.put(id, new Acked(queue, RowReader.uuid(rs, cols, "lease_id")));
            if (moved != null) {
                moved.add(new Settlement.Moved(id, queue, RowReader.lng(rs, cols, "batch_id"),
                        rs.getBoolean(cols.get("has_dependents")), 3));
            }
            return Boolean.TRUE;
        });
        churn.addAndGet(done.size());
        return done;
    }

    private List<JobRow> claimed(List<JobRow> rows) {
        churn.addAndGet(rows.size());
        List<JobRow> claimed = new ArrayList<>(rows);
        claimed.sort(CLAIM_ORDER);
        return claimed;
    }

    /** The "acked" column of job_ack_claim: a JSON array of [id, "queue", "lease_id"]. */
    private static Map<Long, Acked> parseAcked(String json) {
        Map<Long, Acked> out = new HashMap<>();
        if (json == null) {
            return out;
        }
        try {
            for (JsonNode pair : Json.mapper().readTree(json)) {
                out.put(pair.get(0).asLong(), new Acked(pair.get(1).asText(),
                        pair.get(2).asText().toLowerCase(Locale.ROOT)));
            }
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job_ack_claim answered acked=" + json, e);
        }
        return out;
    }

    /** Acknowledgements as job_complete_many and job_ack_claim read them: {"id", "lease_id", "result"}. */
    private static String itemsJson(List<CompleteItem> items) {
        return Json.array(items, items.size() * 90, (g, i) -> {
            g.writeNumberField("id", i.id());
            g.writeStringField("lease_id", i.leaseId());
            g.writeStringField("result", i.result());
        });
    }
}
