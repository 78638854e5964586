package io.readpast.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.readpast.store.BatchRow;
import io.readpast.store.JobRow;
import io.readpast.store.Json;
import io.readpast.store.NewJob;
import io.readpast.store.Params;
import io.readpast.store.Stmt;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

import static io.readpast.store.jdbc.SqlRunner.single;

/**
 * What finishing a job does to the others, inside the transaction that moved it (so that no
 * crash, poller or second instance can see the move without its consequences, or see them
 * twice):
 * <ul>
 *   <li>its batch counts it; the batch that this makes finished (closed, every job done) or due
 *       to fire ({@link BatchRow#fireOn()}) fires here, exactly once: the decision is taken
 *       under the batch row's lock (batch_lock), and written with it (batch_update);</li>
 *   <li>its waiting children count it off (job_dep_settle): the last parent releases a child;
 *       a parent that ended DEAD or CANCELLED cancels the children whose policy says so, and
 *       those cancels settle in turn, here too, until nothing is left to settle.</li>
 * </ul>
 * Jobs in no batch and with no dependents cost nothing: every move statement returns
 * batch_id and has_dependents, and nothing runs when both are empty. Locks: batches in id
 * order, after the moved jobs (the move statement holds them); children under their row locks.
 */
final class Settlement {

    /** A job a statement just moved out of the hot table, with its outcome (3, 4 or 5). */
    record Moved(long id, String queue, Long batchId, boolean hasDependents, int outcome) {

        static Moved of(JobRow row) {
            return new Moved(row.id(), row.queue(), row.batchId(), row.hasDependents(), row.status());
        }

        boolean linked() {
            return batchId != null || hasDependents;
        }
    }

    /**
     * Jobs that settling made claimable, to announce once the transaction has committed (never
     * before: a claimer woken early would find nothing).
     */
    static final class Released {
        private final Map<String, Integer> due = new HashMap<>();
        private final Map<String, Instant> later = new HashMap<>();

        void due(String queue) {
            due.merge(queue, 1, Integer::sum);
        }

        void later(String queue, Instant at) {
            later.merge(queue, at, (a, b) -> a.isBefore(b) ? a : b);
        }

        /** A job whose stored status is {@code status}: claimable now (0), at {@code dueAt} (6), or not (else). */
        void job(String queue, int status, Instant dueAt) {
            if (status == 0) {
                due(queue);
            } else if (status == 6) {
                later(queue, dueAt);
            }
        }

        boolean isEmpty() {
            return due.isEmpty() && later.isEmpty();
        }

        void addAll(Released other) {
            other.due.forEach((q, n) -> due.merge(q, n, Integer::sum));
            other.later.forEach(this::later);
        }
    }

    private final SqlRunner sql;
    private final JobInserts inserts;
    private volatile BiConsumer<String, Integer> onDue = (q, n) -> { };
    private volatile BiConsumer<String, Instant> onLater = (q, t) -> { };

    Settlement(SqlRunner sql, JobInserts inserts) {
        this.sql = sql;
        this.inserts = inserts;
    }

    /** Who hears of released and callback jobs (the announcer: waiting claims, other instances). */
    void listen(BiConsumer<String, Integer> due, BiConsumer<String, Instant> later) {
        this.onDue = due;
        this.onLater = later;
    }

    /** After the commit: tells the listener what became claimable. */
    void announce(Released r) {
        if (r == null || r.isEmpty()) {
            return;
        }
        try {
            r.due.forEach(onDue);
            r.later.forEach(onLater);
        } catch (RuntimeException e) {
            // the due poll finds them anyway; an announcement is only a shortcut
        }
    }

    /** Settles what the moved rows started; returns what to announce after the commit. */
    Released settle(Connection c, List<Moved> moved) throws SQLException {
        Released out = new Released();
        Deque<Moved> work = new ArrayDeque<>();
        for (Moved m : moved) {
            if (m.linked()) {
                work.add(m);
            }
        }
        while (!work.isEmpty()) {
            List<Moved> round = new ArrayList<>(work);
            work.clear();
            // children of jobs, one statement per outcome
            Map<Integer, List<Long>> parents = new TreeMap<>();
            for (Moved m : round) {
                if (m.hasDependents()) {
                    parents.computeIfAbsent(m.outcome(), k -> new ArrayList<>()).add(m.id());
                }
            }
            for (Map.Entry<Integer, List<Long>> e : parents.entrySet()) {
                settleChildren(c, 'j', e.getValue(), e.getKey(), out, work);
            }
            // batches, in id order (two settlements lock them in the same order)
            Map<Long, int[]> counts = new TreeMap<>();
            for (Moved m : round) {
                if (m.batchId() != null) {
                    int[] n = counts.computeIfAbsent(m.batchId(), k -> new int[3]);
                    n[m.outcome() == 3 ? 0 : m.outcome() == 4 ? 1 : 2]++;
                }
            }
            for (Map.Entry<Long, int[]> e : counts.entrySet()) {
                int[] n = e.getValue();
                BatchRow b = lock(c, e.getKey());
                if (b != null) {
                    change(c, b, new Delta(0, n[0], n[1], n[2], false, false, b.queues()), out, work);
                }
            }
        }
        return out;
    }

    /** A change to a batch's counts or state, decided under its lock. */
    record Delta(int added, int succeeded, int dead, int cancelled, boolean close, boolean cancel, List<String> queues) {
    }

    BatchRow lock(Connection c, long id) throws SQLException {
        return single(sql.query(c, Stmt.BATCH_LOCK, Params.of().lng("id", id), sql.rows()::batch)).orElse(null);
    }

    /**
     * {@link #change}, and the settling of what it starts (children a finished batch cancels),
     * in this transaction; what became claimable goes into {@code out}.
     */
    BatchRow apply(Connection c, BatchRow b, Delta d, Released out) throws SQLException {
        Deque<Moved> work = new ArrayDeque<>();
        BatchRow changed = change(c, b, d, out, work);
        if (!work.isEmpty()) {
            out.addAll(settle(c, List.copyOf(work)));
        }
        return changed;
    }

    /**
     * Applies {@code d} to batch {@code b} (read under batch_lock in this transaction): writes
     * the counts, and when this change finishes or fires the batch, does what that means, once.
     */
    private BatchRow change(Connection c, BatchRow b, Delta d, Released out, Deque<Moved> work) throws SQLException {
        int total = b.total() + d.added();
        int succeeded = b.succeeded() + d.succeeded();
        int dead = b.dead() + d.dead();
        int cancelled = b.cancelled() + d.cancelled();
        boolean closed = b.closed() || d.close();
        boolean finishNow = b.finishedAt() == null && closed && succeeded + dead + cancelled >= total;
        boolean finished = b.finishedAt() != null || finishNow;
        boolean fireNow = b.firedAt() == null && switch (b.fireOn()) {
            case BatchRow.FIRE_ON_SUCCESS -> finished && dead == 0 && cancelled == 0;
            case BatchRow.FIRE_ON_DEATH -> dead > 0;
            default -> finished;
        };
        Long callbackJob = null;
        if (fireNow && b.callback() != null) {
            JobRow job = inserts.insert(c, callbackJob(b, total, succeeded, dead, cancelled))
                    .orElseThrow(() -> new IllegalStateException("batch " + b.id() + "'s callback job was not inserted"));
            callbackJob = job.id();
            out.job(job.queue(), job.status(), job.dueAt());
        }
        if (fireNow && b.webhookUrl() != null) {
            sql.execute(c, Stmt.BATCH_WEBHOOK_INSERT, Params.of().lng("batch_id", b.id())
                    .str("queue", b.queues().isEmpty() ? "" : b.queues().get(0)).str("url", b.webhookUrl()));
        }
        BatchRow updated = single(sql.query(c, Stmt.BATCH_UPDATE, Params.of()
                .lng("id", b.id())
                .integer("total", total)
                .integer("succeeded", succeeded)
                .integer("dead", dead)
                .integer("cancelled", cancelled)
                .str("queues", Json.write(d.queues()))
                .bool("close", d.close())
                .bool("finish", finishNow)
                .bool("fire", fireNow)
                .bool("cancel", d.cancel())
                .bool("reopen", false)
                .lng("callback_job_id", callbackJob), sql.rows()::batch)).orElseThrow();
        if (finishNow && b.hasDependents()) {
            settleChildren(c, 'b', List.of(b.id()), dead + cancelled == 0 ? 3 : 4, out, work);
        }
        return updated;
    }

    /**
     * A job of batch {@code b} (read under batch_lock in this transaction) that ended with
     * {@code outcome} (4 DEAD, 5 CANCELLED) was requeued: that outcome no longer counts, and the
     * batch is not finished until the job finishes again (then it settles as usual; a batch that
     * fired does not fire again).
     */
    BatchRow requeued(Connection c, BatchRow b, int outcome) throws SQLException {
        return single(sql.query(c, Stmt.BATCH_UPDATE, Params.of()
                .lng("id", b.id())
                .integer("total", b.total())
                .integer("succeeded", b.succeeded())
                .integer("dead", Math.max(0, b.dead() - (outcome == 4 ? 1 : 0)))
                .integer("cancelled", Math.max(0, b.cancelled() - (outcome == 5 ? 1 : 0)))
                .str("queues", Json.write(b.queues()))
                .bool("close", false)
                .bool("finish", false)
                .bool("fire", false)
                .bool("cancel", false)
                .bool("reopen", true)
                .lng("callback_job_id", null), sql.rows()::batch)).orElseThrow();
    }

    /**
     * Parents of {@code kind} settled with {@code outcome}: their waiting children count them
     * off; the ones to cancel are cancelled now, and what they started is queued in {@code work}.
     */
    private void settleChildren(Connection c, char kind, List<Long> parents, int outcome, Released out,
                                Deque<Moved> work) throws SQLException {
        List<Long> cancel = new ArrayList<>();
        sql.query(c, Stmt.JOB_DEP_SETTLE, Params.of().str("kind", String.valueOf(kind))
                .str("parents", Json.write(parents)).integer("outcome", outcome), (rs, cols) -> {
                    if (rs.getBoolean(cols.get("cancel"))) {
                        cancel.add(rs.getLong(cols.get("id")));
                    } else {
                        out.job(rs.getString(cols.get("queue")), rs.getInt(cols.get("status")),
                                sql.rows().instant(rs, cols, "due_at"));
                    }
                    return Boolean.TRUE;
                });
        if (cancel.isEmpty()) {
            return;
        }
        String reason = (kind == 'j' ? "parent job" : "parent batch") + (parents.size() == 1 ? " " + parents.get(0) : "s "
                + parents) + (kind == 'b' ? " finished with failures" : outcome == 4 ? " ended DEAD" : " was CANCELLED");
        work.addAll(cancelMany(c, cancel, reason, null));
    }

    /** Moves the jobs nobody holds among {@code ids} to the archive as CANCELLED. */
    List<Moved> cancelMany(Connection c, List<Long> ids, String reason, String by) throws SQLException {
        return sql.query(c, Stmt.JOB_CANCEL_MANY, Params.of().str("ids", Json.write(ids)).str("reason", reason)
                .str("modified_by", by), (rs, cols) -> new Moved(rs.getLong(cols.get("id")), rs.getString(cols.get("queue")),
                RowReader.lng(rs, cols, "batch_id"), rs.getBoolean(cols.get("has_dependents")), 5));
    }

    /**
     * The callback job of a batch that fires: the stored callback, its payload wrapped with the
     * batch's id and counts ({@code {"batchId", "total", "succeeded", "dead", "cancelled", "payload"}}).
     */
    private static NewJob callbackJob(BatchRow b, int total, int succeeded, int dead, int cancelled) {
        try {
            JsonNode spec = Json.mapper().readTree(b.callback());
            ObjectNode payload = Json.mapper().createObjectNode();
            payload.put("batchId", Long.toString(b.id()));
            payload.put("total", total);
            payload.put("succeeded", succeeded);
            payload.put("dead", dead);
            payload.put("cancelled", cancelled);
            payload.set("payload", spec.path("payload").isMissingNode() ? null : spec.get("payload"));
            return new NewJob(spec.get("queue").asText(), spec.get("type").asText(), Json.write(payload),
                    spec.hasNonNull("tags") ? Json.write(spec.get("tags")) : null, null, spec.path("priority").asInt(0),
                    spec.hasNonNull("maxAttempts") ? spec.get("maxAttempts").asInt() : null,
                    spec.path("defaultMaxAttempts").asInt(3), null, 0, b.createdBy(), null, null, null, 0, null);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("batch " + b.id() + "'s callback is not the expected JSON", e);
        }
    }
}
