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

    ClaimPath(SqlRunner sql, ClaimGate gate, CappedQueues capped, Settlement settlement) {
        this.sql = sql;
        this.settlement = settlement;
        this.gate = gate;
        this.capped = capped;
    }

    long churn() {
        return churn.get();
    }

    List<JobRow> claim(ClaimParams claim) {
        String queuesJson = claim.queues() == null ? null : Json.write(claim.queues());
        Params p = claimParams(claim, queuesJson);
        if (!capped.inScope(claim.queues())) {
            // No capped queue in scope: the claim alone, one statement (one round trip on
            // PostgreSQL). Locking nothing, it leaves capped queues alone even if one was capped
            // a moment ago elsewhere, so the cap holds whatever the cache says.
            p.str("locked_queues", "[]");
            return gate.run(() -> sql.oneStatement(c -> claimed(sql.queryJobs(c, Stmt.JOB_CLAIM, p))));
        }
        String fairOnly = capped.onlyFairFree(claim.queues());
        if (fairOnly != null) {
            // a fair queue with round-robin alone, and nothing else in scope: job_claim_fair
            // alone, one statement (it takes no queue lock, and no plain queue is reachable)
            return gate.run(() -> sql.oneStatement(c -> claimed(claimFair(c, p, fairOnly))));
        }
        List<String> fairFree = capped.fairFree(claim.queues());
        return gate.run(() -> sql.tx(c -> claimLocked(c, p, queuesJson, claim.limit(), fairFree)));
    }

    private List<JobRow> claimFair(Connection c, Params p, String queue) throws SQLException {
        p.str("queue", queue).bool("locked", false);
        return sql.queryJobs(c, Stmt.JOB_CLAIM_FAIR, p);
    }

    AckClaimed ackClaim(List<CompleteItem> acks, ClaimParams claim) {
        String queuesJson = claim.queues() == null ? null : Json.write(claim.queues());
        String items = itemsJson(acks);
        Params p = claimParams(claim, queuesJson);
        if (capped.inScope(claim.queues())) {
            // the acks commit first, in a transaction of their own: the claim's queue lock is
            // never taken while this transaction still holds the acked rows (two ack-and-claims
            // on one capped queue would otherwise wait for each other's deletes, and deadlock)
            Map<Long, Acked> acked = completeMany(acks, claim.by());
            String fairOnly = capped.onlyFairFree(claim.queues());
            if (fairOnly != null) {
                return new AckClaimed(acked, gate.run(() -> sql.oneStatement(c -> claimed(claimFair(c, p, fairOnly)))));
            }
            List<String> fairFree = capped.fairFree(claim.queues());
            return new AckClaimed(acked, gate.run(() -> sql.tx(c -> claimLocked(c, p, queuesJson, claim.limit(),
                    fairFree))));
        }
        p.str("items", items).bool("linked", false);
        AckClaimed fast = gate.run(() -> sql.oneStatement(c -> {
            // one row per claimed job (or one row of nulls), the acked jobs on the first row
            String[] acked = new String[1];
            List<JobRow> claimed = new ArrayList<>();
            sql.query(c, Stmt.JOB_ACK_CLAIM, p, (rs, cols) -> {
                String a = rs.getString(cols.get("acked"));
                if (a != null) {
                    acked[0] = a;
                }
                rs.getLong(cols.get("id"));
                if (!rs.wasNull()) {
                    claimed.add(sql.rows().job(rs, cols));
                }
                return Boolean.TRUE;
            });
            Map<Long, Acked> ackedJobs = parseAcked(acked[0]);
            churn.addAndGet(ackedJobs.size());
            return new AckClaimed(ackedJobs, claimed(claimed));
        }));
        // jobs of a batch, or with dependents, were left alone: completed now, with their settling
        return new AckClaimed(completeLinked(acks, claim.by(), fast.acked()), fast.claimed());
    }

    Map<Long, Acked> completeMany(List<CompleteItem> items, String by) {
        Params p = Params.of().str("items", itemsJson(items)).str("modified_by", by).bool("linked", false);
        return completeLinked(items, by, sql.oneStatement(c -> completeMany(c, p, null)));
    }

    /**
     * The items {@code done} does not hold, completed in a transaction that also settles their
     * batches and dependents (job_complete_many with linked jobs taken): the fast statements
     * leave such jobs alone. An item whose lease is simply not held costs this one more look.
     */
    private Map<Long, Acked> completeLinked(List<CompleteItem> items, String by, Map<Long, Acked> done) {
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
        Map<Long, Acked> more = sql.tx(c -> {
            List<Settlement.Moved> moved = new ArrayList<>();
            Map<Long, Acked> acked = completeMany(c, p, moved);
            released[0] = settlement.settle(c, moved);
            return acked;
        });
        settlement.announce(released[0]);
        if (more.isEmpty()) {
            return done;
        }
        Map<Long, Acked> all = new HashMap<>(done);
        all.putAll(more);
        return all;
    }

    private static Params claimParams(ClaimParams claim, String queuesJson) {
        return Params.of()
                .str("worker_id", claim.workerId())
                .str("queues", queuesJson)
                .str("types", claim.types() == null ? null : Json.write(claim.types()))
                .integer("limit", claim.limit())
                .integer("lease_seconds", claim.leaseSeconds())
                .integer("default_lease_seconds", claim.defaultLeaseSeconds())
                .str("modified_by", claim.by());
    }

    /**
     * The claim when a capped (or fair) queue may be in scope, inside the caller's transaction:
     * the rows of the queues with limits locked first; each fair queue claimed by job_claim_fair
     * (those locked, then {@code fairFree}, the ones with round-robin alone, which need no
     * lock), in name order; then the other queues by job_claim with what is left of the limit.
     */
    private List<JobRow> claimLocked(Connection c, Params p, String queuesJson, int limit, List<String> fairFree)
            throws SQLException {
        List<String> locked = new ArrayList<>();
        List<String> fair = new ArrayList<>();
        Set<String> rateLimited = new HashSet<>();
        sql.query(c, Stmt.QUEUE_LOCK_CAPPED, Params.of().str("queues", queuesJson), (rs, cols) -> {
            String name = rs.getString(cols.get("name"));
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
        List<JobRow> rows = new ArrayList<>();
        List<String> fairLocked = List.copyOf(fair);
        for (String queue : fairFree) {
            if (!fair.contains(queue)) {
                fair.add(queue);
            }
        }
        for (String queue : fair) {
            if (rows.size() >= limit) {
                break;
            }
            p.str("queue", queue).bool("locked", fairLocked.contains(queue)).integer("limit", limit - rows.size());
            rows.addAll(sql.queryJobs(c, Stmt.JOB_CLAIM_FAIR, p));
        }
        if (rows.size() < limit) {
            p.str("locked_queues", Json.write(locked)).integer("limit", limit - rows.size());
            rows.addAll(sql.queryJobs(c, Stmt.JOB_CLAIM, p));
        }
        List<JobRow> claimed = claimed(rows);
        if (!rateLimited.isEmpty()) {
            // Rate limits: count this claim in each rate-limited queue's window, in the same
            // transaction, while its row is still locked (the next claim there reads the count).
            Map<String, Integer> perQueue = new TreeMap<>();
            for (JobRow j : claimed) {
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
        return claimed;
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
        StringWriter w = new StringWriter(items.size() * 90);
        try (JsonGenerator g = Json.mapper().getFactory().createGenerator(w)) {
            g.writeStartArray();
            for (CompleteItem i : items) {
                g.writeStartObject();
                g.writeNumberField("id", i.id());
                g.writeStringField("lease_id", i.leaseId());
                g.writeStringField("result", i.result());
                g.writeEndObject();
            }
            g.writeEndArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return w.toString();
    }
}
