package io.readpast.store.jdbc;

import io.readpast.store.BatchRow;
import io.readpast.store.BatchStore;
import io.readpast.store.JobLinks;
import io.readpast.store.JobRow;
import io.readpast.store.Json;
import io.readpast.store.LinkRefused;
import io.readpast.store.NewBatch;
import io.readpast.store.NewJob;
import io.readpast.store.Params;
import io.readpast.store.Stmt;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static io.readpast.store.jdbc.SqlRunner.single;

/**
 * {@link BatchStore} on the engine's named statements. Lock order, the same in every path so
 * that two changes never wait for each other in a circle: the parents a new job names first
 * (job_dep_lock_parents, batch_lock_parents: once a parent is locked it cannot settle before
 * the new edges are in, and if it settled just before, it is found finished), then the batch
 * the jobs join (batch_lock), then the new rows. Settling takes the moved jobs, then batches in
 * id order, then children.
 */
final class JdbcBatchStore implements BatchStore {

    /** How many jobs and batches the cycle check reads before it gives up (and refuses). */
    static final int CYCLE_CHECK_LIMIT = 10_000;

    private final SqlRunner sql;
    private final JobInserts inserts;
    private final Settlement settlement;

    JdbcBatchStore(SqlRunner sql, JobInserts inserts, Settlement settlement) {
        this.sql = sql;
        this.inserts = inserts;
        this.settlement = settlement;
    }

    @Override
    public Change batchCreate(NewBatch batch, List<NewJob> jobs, List<JobLinks> links) {
        Settlement.Released[] released = new Settlement.Released[1];
        Change change = sql.tx(c -> {
            Map<Long, Integer> satisfied = lockParents(c, links);
            BatchRow b = single(sql.query(c, Stmt.BATCH_INSERT, Params.of()
                    .str("queues", Json.write(batch.queues()))
                    .integer("fire_on", batch.fireOn())
                    .str("callback", batch.callback())
                    .str("webhook_url", batch.webhookUrl())
                    .str("created_by", batch.createdBy()), sql.rows()::batch)).orElseThrow();
            // a new batch is nobody's parent yet: its jobs' parents cannot lead back to it
            List<JobRow> rows = insertLinked(c, jobs, inBatch(links, b.id()), satisfied);
            b = settlement.lock(c, b.id());
            released[0] = new Settlement.Released();
            BatchRow updated = settlement.apply(c, b, new Settlement.Delta(rows.size(), 0, 0, 0, batch.close(), false,
                    batch.queues()), released[0]);
            return new Change(updated, rows);
        });
        announce(change.jobs());
        settlement.announce(released[0]);
        return change;
    }

    @Override
    public Change batchAdd(long id, List<NewJob> jobs, List<JobLinks> links, List<String> queues) {
        Settlement.Released[] released = new Settlement.Released[1];
        Change change = sql.tx(c -> {
            Map<Long, Integer> satisfied = lockParents(c, links);
            checkCycles(c, id, links);
            BatchRow b = settlement.lock(c, id);
            if (b == null) {
                throw new LinkRefused(LinkRefused.Kind.NOT_FOUND, "There is no batch " + id + ".");
            }
            if (b.closed()) {
                throw new LinkRefused(LinkRefused.Kind.CONFLICT, "Batch " + id + " is closed: no job can join it now.");
            }
            List<JobRow> rows = insertLinked(c, jobs, inBatch(links, id), satisfied);
            TreeSet<String> all = new TreeSet<>(b.queues());
            all.addAll(queues);
            released[0] = new Settlement.Released();
            BatchRow updated = settlement.apply(c, b, new Settlement.Delta(rows.size(), 0, 0, 0, false, false,
                    List.copyOf(all)), released[0]);
            return new Change(updated, rows);
        });
        announce(change.jobs());
        settlement.announce(released[0]);
        return change;
    }

    @Override
    public BatchRow batchClose(long id) {
        Settlement.Released[] released = new Settlement.Released[1];
        BatchRow b = sql.tx(c -> {
            BatchRow row = settlement.lock(c, id);
            if (row == null) {
                throw new LinkRefused(LinkRefused.Kind.NOT_FOUND, "There is no batch " + id + ".");
            }
            if (row.closed()) {
                throw new LinkRefused(LinkRefused.Kind.CONFLICT, "Batch " + id + " is closed already.");
            }
            released[0] = new Settlement.Released();
            return settlement.apply(c, row, new Settlement.Delta(0, 0, 0, 0, true, false, row.queues()), released[0]);
        });
        settlement.announce(released[0]);
        return b;
    }

    @Override
    public Optional<BatchRow> batchCancel(long id, String by) {
        // First closed and marked, in a transaction of its own: no job joins it after this.
        Settlement.Released[] released = new Settlement.Released[2];
        Optional<BatchRow> marked = sql.tx(c -> {
            BatchRow row = settlement.lock(c, id);
            if (row == null) {
                return Optional.empty();
            }
            released[0] = new Settlement.Released();
            return Optional.of(settlement.apply(c, row, new Settlement.Delta(0, 0, 0, 0, true, true, row.queues()),
                    released[0]));
        });
        if (marked.isEmpty()) {
            return marked;
        }
        settlement.announce(released[0]);
        // Then its jobs, never waiting on a job's row while the batch's row is held: a worker's
        // ack holds its job's row and then takes the batch's (settling), so the other order would
        // deadlock (LO1 in docs/sqlserver.md, "Lock order"). The jobs at work get cancel requested
        // first, in a transaction that locks job rows only; then those nobody holds move to the
        // archive and settle (job rows, then the batch's, last, as an ack does); then cancel is
        // requested again, job rows only, for a job claimed between the two.
        sql.tx(c -> {
            sql.execute(c, Stmt.JOB_CANCEL_REQUEST_BATCH, Params.of().lng("id", id).str("modified_by", by));
            return null;
        });
        sql.tx(c -> {
            List<Long> unheld = sql.query(c, Stmt.JOB_BATCH_UNHELD, Params.of().lng("id", id),
                    (rs, cols) -> rs.getLong(cols.get("id")));
            if (!unheld.isEmpty()) {
                List<Settlement.Moved> moved = settlement.cancelMany(c, unheld, "batch " + id + " was cancelled", by);
                released[1] = settlement.settle(c, moved);
            }
            return null;
        });
        sql.tx(c -> {
            sql.execute(c, Stmt.JOB_CANCEL_REQUEST_BATCH, Params.of().lng("id", id).str("modified_by", by));
            return null;
        });
        settlement.announce(released[1]);
        return batchGet(id);
    }

    @Override
    public Optional<BatchRow> batchGet(long id) {
        return sql.oneStatement(c -> single(sql.query(c, Stmt.BATCH_GET, Params.of().lng("id", id), sql.rows()::batch)));
    }

    @Override
    public List<BatchRow> batchList(Long after, int limit) {
        return sql.oneStatement(c -> sql.query(c, Stmt.BATCH_LIST, Params.of().lng("after", after).integer("limit", limit),
                sql.rows()::batch));
    }

    @Override
    public List<JobRow> jobInsertLinked(List<NewJob> jobs, List<JobLinks> links) {
        List<JobRow> rows = sql.tx(c -> insertLinked(c, jobs, links, lockParents(c, links)));
        announce(rows);
        return rows;
    }

    @Override
    public List<Edge> edges(Long child, char kind, long parent, int limit) {
        return sql.oneStatement(c -> sql.query(c, Stmt.JOB_DEP_EDGES, Params.of().lng("child", child)
                .str("kind", String.valueOf(kind)).lng("parent", parent).integer("limit", limit), (rs, cols) -> new Edge(
                rs.getString(cols.get("parent_kind")).charAt(0), rs.getLong(cols.get("parent_id")),
                rs.getLong(cols.get("child_id")), RowReader.integer(rs, cols, "outcome"))));
    }

    private static List<JobLinks> inBatch(List<JobLinks> links, long batch) {
        return links.stream().map(l -> l.inBatch(batch)).toList();
    }

    private void announce(List<JobRow> rows) {
        Settlement.Released r = new Settlement.Released();
        for (JobRow j : rows) {
            r.job(j.queue(), j.status(), j.dueAt());
        }
        settlement.announce(r);
    }

    /**
     * Locks every parent the jobs name (jobs still in the hot table, and batches) and answers
     * the ones already settled, by id (batches as their negated id): 3 when it succeeded, 4 or 5
     * when it failed. Refuses unknown ids, and a failed parent of a job that would be cancelled
     * for it at once.
     */
    private Map<Long, Integer> lockParents(Connection c, List<JobLinks> links) throws SQLException {
        TreeSet<Long> jobs = new TreeSet<>();
        TreeSet<Long> batches = new TreeSet<>();
        for (JobLinks l : links) {
            jobs.addAll(l.parentJobs());
            batches.addAll(l.parentBatches());
        }
        Map<Long, Integer> settled = new HashMap<>();
        if (!jobs.isEmpty()) {
            Set<Long> live = new HashSet<>(sql.query(c, Stmt.JOB_DEP_LOCK_PARENTS, Params.of().str("ids", Json.write(jobs)),
                    (rs, cols) -> rs.getLong(cols.get("id"))));
            List<Long> rest = jobs.stream().filter(id -> !live.contains(id)).toList();
            if (!rest.isEmpty()) {
                sql.query(c, Stmt.JOB_DEP_FINISHED_PARENTS, Params.of().str("ids", Json.write(rest)), (rs, cols) ->
                        settled.put(rs.getLong(cols.get("id")), rs.getInt(cols.get("status"))));
                for (Long id : rest) {
                    if (!settled.containsKey(id)) {
                        throw new LinkRefused(LinkRefused.Kind.UNKNOWN, "dependsOn names job " + id + ", which does not "
                                + "exist.");
                    }
                }
            }
        }
        if (!batches.isEmpty()) {
            Set<Long> found = new HashSet<>();
            sql.query(c, Stmt.BATCH_LOCK_PARENTS, Params.of().str("ids", Json.write(batches)), (rs, cols) -> {
                long id = rs.getLong(cols.get("id"));
                found.add(id);
                if (sql.rows().instant(rs, cols, "finished_at") != null) {
                    settled.put(-id, rs.getInt(cols.get("dead")) + rs.getInt(cols.get("cancelled")) == 0 ? 3 : 4);
                }
                return Boolean.TRUE;
            });
            for (Long id : batches) {
                if (!found.contains(id)) {
                    throw new LinkRefused(LinkRefused.Kind.UNKNOWN, "dependsOn names batch " + id + ", which does not "
                            + "exist.");
                }
            }
        }
        for (JobLinks l : links) {
            if (l.runOnParentFailure()) {
                continue;
            }
            for (Long id : l.parentJobs()) {
                Integer o = settled.get(id);
                if (o != null && o != 3) {
                    throw new LinkRefused(LinkRefused.Kind.CONFLICT, "Parent job " + id + " is " + (o == 4 ? "DEAD" : "CANCELLED")
                            + " already: the job would be cancelled at once. Requeue the parent first, or enqueue with "
                            + "onParentFailure \"run\".");
                }
            }
            for (Long id : l.parentBatches()) {
                Integer o = settled.get(-id);
                if (o != null && o != 3) {
                    throw new LinkRefused(LinkRefused.Kind.CONFLICT, "Parent batch " + id + " finished with DEAD or "
                            + "CANCELLED jobs already: the job would be cancelled at once. Enqueue with onParentFailure "
                            + "\"run\" to run it anyway.");
                }
            }
        }
        return settled;
    }

    /**
     * Refuses jobs joining batch {@code batch} whose parents wait, directly or through others,
     * for that batch: the batch could never finish. Walks the unsettled edges upwards from the
     * named parents (a batch's parents are those of its waiting jobs).
     */
    private void checkCycles(Connection c, long batch, List<JobLinks> links) throws SQLException {
        Set<Long> jobs = new TreeSet<>();
        Set<Long> batches = new TreeSet<>();
        for (JobLinks l : links) {
            jobs.addAll(l.parentJobs());
            batches.addAll(l.parentBatches());
        }
        Set<String> seen = new HashSet<>();
        int read = 0;
        while (!jobs.isEmpty() || !batches.isEmpty()) {
            if (batches.contains(batch)) {
                throw new LinkRefused(LinkRefused.Kind.CYCLE, "dependsOn would make batch " + batch + " wait for itself: "
                        + "a job of the batch would wait, directly or through other jobs, for the batch to finish.");
            }
            read += jobs.size() + batches.size();
            if (read > CYCLE_CHECK_LIMIT) {
                throw new LinkRefused(LinkRefused.Kind.CYCLE, "dependsOn reaches more than " + CYCLE_CHECK_LIMIT
                        + " waiting jobs and batches: too many to check for a cycle.");
            }
            Set<Long> nextJobs = new TreeSet<>();
            Set<Long> nextBatches = new TreeSet<>();
            sql.query(c, Stmt.JOB_DEP_PARENTS_OF, Params.of().str("jobs", Json.write(jobs)).str("batches",
                    Json.write(batches)), (rs, cols) -> {
                        String kind = rs.getString(cols.get("parent_kind"));
                        long id = rs.getLong(cols.get("parent_id"));
                        if (seen.add(kind + id)) {
                            (kind.equals("b") ? nextBatches : nextJobs).add(id);
                        }
                        return Boolean.TRUE;
                    });
            jobs = nextJobs;
            batches = nextBatches;
        }
    }

    /**
     * Inserts the jobs, then ties each to its batch and parents: job_link (a job with a parent
     * left becomes WAITING) and its edges (settled parents' edges carry their outcome already).
     */
    private List<JobRow> insertLinked(Connection c, List<NewJob> jobs, List<JobLinks> links, Map<Long, Integer> settled)
            throws SQLException {
        List<JobRow> inserted = new ArrayList<>(jobs.size());
        for (NewJob job : jobs) {
            if (job.groupKey() != null) {
                inserts.lockGroup(c, job.queue(), job.groupKey());
            }
            inserted.add(inserts.insert(c, job).orElseThrow(() -> new LinkRefused(LinkRefused.Kind.CONFLICT,
                    "A live job holds idempotency key '" + job.idempotencyKey() + "': a job with parents or in a batch "
                            + "is always a new job.")));
        }
        List<Map<String, Object>> items = new ArrayList<>(jobs.size());
        List<Map<String, Object>> edges = new ArrayList<>();
        for (int k = 0; k < inserted.size(); k++) {
            JobLinks l = links.get(k);
            long child = inserted.get(k).id();
            int left = 0;
            for (Long p : l.parentJobs()) {
                Integer o = settled.get(p);
                left += o == null ? 1 : 0;
                edges.add(edge("j", p, child, o));
            }
            for (Long p : l.parentBatches()) {
                Integer o = settled.get(-p);
                left += o == null ? 1 : 0;
                edges.add(edge("b", p, child, o));
            }
            if (l.batchId() == null && left == 0 && l.parentJobs().isEmpty() && l.parentBatches().isEmpty()) {
                continue;
            }
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("id", child);
            item.put("batch_id", l.batchId());
            item.put("deps_left", left);
            item.put("policy", l.runOnParentFailure() ? 1 : 0);
            items.add(item);
        }
        List<JobRow> out = new ArrayList<>(inserted);
        if (!items.isEmpty()) {
            Map<Long, JobRow> linked = new HashMap<>();
            for (JobRow r : sql.queryJobs(c, Stmt.JOB_LINK, Params.of().str("items", Json.write(items)))) {
                linked.put(r.id(), r);
            }
            out.replaceAll(r -> linked.getOrDefault(r.id(), r));
        }
        if (!edges.isEmpty()) {
            sql.execute(c, Stmt.JOB_DEP_INSERT, Params.of().str("edges", Json.write(edges)));
        }
        return out;
    }

    private static Map<String, Object> edge(String kind, long parent, long child, Integer outcome) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("kind", kind);
        e.put("parent", parent);
        e.put("child", child);
        e.put("outcome", outcome);
        return e;
    }
}
