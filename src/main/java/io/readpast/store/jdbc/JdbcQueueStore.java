package io.readpast.store.jdbc;

import io.readpast.store.Json;
import io.readpast.store.Params;
import io.readpast.store.QueueRow;
import io.readpast.store.QueueSettings;
import io.readpast.store.QueueStore;
import io.readpast.store.Stmt;
import io.readpast.store.StoreException;

import java.util.List;
import java.util.Optional;

import static io.readpast.store.jdbc.SqlRunner.single;

/** {@link QueueStore} on the engine's named statements; its writes refresh the capped-queue list. */
final class JdbcQueueStore implements QueueStore {

    private final SqlRunner sql;
    private final CappedQueues capped;

    JdbcQueueStore(SqlRunner sql, CappedQueues capped) {
        this.sql = sql;
        this.capped = capped;
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
                .lng("rate_period_ms", s.ratePeriodMs())
                .bool("fair", s.fairness().fair())
                .integer("key_max_workers", s.fairness().keyMaxWorkers())
                .integer("key_rate_limit", s.fairness().keyRateLimit())
                .lng("key_rate_period_ms", s.fairness().keyRatePeriodMs())
                .bool("delete_succeeded", s.deleteSucceeded());
        return write(Stmt.QUEUE_UPSERT, p, s.name());
    }

    @Override
    public int queueFairKeys(String queue, int limit) {
        return sql.oneStatement(c -> sql.query(c, Stmt.JOB_FAIR_KEYS,
                Params.of().str("queue", queue).integer("limit", limit), (rs, cols) -> Boolean.TRUE).size());
    }

    @Override
    public List<KeyCounts> queueKeys(String queue, int limit) {
        return sql.oneStatement(c -> sql.query(c, Stmt.QUEUE_KEYS, Params.of().str("queue", queue).integer("limit", limit),
                (rs, cols) -> new KeyCounts(rs.getString(cols.get("fairness_key")), rs.getLong(cols.get("pending")),
                        rs.getLong(cols.get("active")))));
    }

    @Override
    public QueueRow queueSetPaused(String name, boolean paused) {
        return write(Stmt.QUEUE_SET_PAUSED, Params.of().str("name", name).bool("paused", paused), name);
    }

    /**
     * Runs a queue write, commits it, then reads the row back with its counts in a read of its
     * own: the write's lock on the queue row is never held while the queue's jobs are read
     * (which would wait behind acks and claims of that queue, and they behind the row).
     */
    private QueueRow write(Stmt write, Params p, String name) {
        try {
            sql.tx(c -> sql.execute(c, write, p));
        } finally {
            capped.queueWritten();  // committed (or not): claims read the capped queues again
        }
        return queueGet(name).orElseThrow(() -> new StoreException(StoreException.Kind.OTHER,
                "queue row " + name + " missing right after " + write, null));
    }

    @Override
    public Optional<QueueRow> queueGet(String name) {
        return sql.oneStatement(c -> single(sql.query(c, Stmt.QUEUE_GET, Params.of().str("name", name), sql.rows()::queue)));
    }

    @Override
    public List<QueueRow> queueList(boolean includeInactive) {
        return sql.oneStatement(c -> sql.query(c, Stmt.QUEUE_LIST, Params.of().bool("include_inactive", includeInactive),
                sql.rows()::queue));
    }

    @Override
    public Optional<QueueDeletion> queueDelete(String name, java.util.function.Predicate<QueueHolds> mayGo) {
        try {
            return sql.tx(c -> {
                Optional<QueueHolds> holds = single(sql.query(c, Stmt.QUEUE_DELETE_CHECK, Params.of().str("name", name),
                        (rs, cols) -> new QueueHolds(rs.getLong(cols.get("unfinished")), rs.getLong(cols.get("dead")),
                                rs.getLong(cols.get("finished")), rs.getLong(cols.get("schedules")))));
                if (holds.isEmpty()) {
                    return Optional.<QueueDeletion>empty();
                }
                boolean go = mayGo.test(holds.get());
                if (go) {
                    sql.execute(c, Stmt.QUEUE_DELETE, Params.of().str("name", name));
                }
                return Optional.of(new QueueDeletion(holds.get(), go));
            });
        } finally {
            capped.queueWritten();  // its settings went back to the defaults: claims read the capped queues again
        }
    }

    @Override
    public int queuePurgeFinished(String name, int limit) {
        return sql.tx(c -> sql.query(c, Stmt.QUEUE_PURGE_FINISHED, Params.of().str("name", name).integer("limit", limit),
                (rs, cols) -> rs.getInt(cols.get("deleted")))).stream().mapToInt(Integer::intValue).sum();
    }

    @Override
    public List<String> queueFind(List<String> names) {
        Params p = Params.of().str("queues", Json.write(names));
        return sql.oneStatement(c -> sql.query(c, Stmt.QUEUE_FIND, p, (rs, cols) -> rs.getString(cols.get("name"))));
    }
}
