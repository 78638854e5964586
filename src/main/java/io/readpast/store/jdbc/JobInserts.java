package io.readpast.store.jdbc;

import io.readpast.store.JobRow;
import io.readpast.store.JobStore.Inserted;
import io.readpast.store.Json;
import io.readpast.store.NewJob;
import io.readpast.store.Params;
import io.readpast.store.Stmt;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

import static io.readpast.store.jdbc.SqlRunner.single;

/**
 * Inserting jobs inside a caller's transaction: the plain insert, the ordered group's lock, and
 * the uniqueness window (uniqueFor). Enqueues and schedule firings both go through here.
 */
final class JobInserts {

    private final SqlRunner sql;

    JobInserts(SqlRunner sql) {
        this.sql = sql;
    }

    /** Inserts the job; empty when a live job holds its idempotency key. */
    Optional<JobRow> insert(Connection c, NewJob job) throws SQLException {
        return single(sql.queryJobs(c, Stmt.JOB_INSERT, params(job)));
    }

    /** Inserts the job, or answers the live job that holds its idempotency key (created false). */
    Inserted insertOrKeyHolder(Connection c, NewJob job) throws SQLException {
        Optional<JobRow> row = insert(c, job);
        return row.isPresent() ? new Inserted(row.get(), true) : new Inserted(keyHolder(c, job.idempotencyKey()), false);
    }

    /** The live job holding an idempotency key that an insert just found held. */
    JobRow keyHolder(Connection c, String idempotencyKey) throws SQLException {
        return single(sql.queryJobs(c, Stmt.JOB_GET_BY_KEY, Params.of().str("idempotency_key", idempotencyKey)))
                .orElseThrow(() -> new SQLException("idempotency key vanished", "40001"));
    }

    /**
     * Ordered groups: holds the group's lock until the transaction ends, so that the group's
     * jobs get their places (group_seq) in the order they become visible.
     */
    void lockGroup(Connection c, String queue, String groupKey) throws SQLException {
        sql.execute(c, Stmt.JOB_GROUP_LOCK, Params.of().str("queue", queue).str("group_key", groupKey));
    }

    /**
     * uniqueFor: takes the job's uniqueness key and inserts it, in the caller's transaction. When
     * another job holds the key within its window, that job is the answer (created false) and
     * nothing is inserted; when the holder was deleted meanwhile, the key is taken over. When a
     * live job holds the idempotency key, that job is the answer and stands for the key.
     */
    Inserted insertUnique(Connection c, NewJob job, boolean groupLocked) throws SQLException {
        if (job.groupKey() != null && !groupLocked) {
            // the group's lock before the key: every path takes its locks in that order
            lockGroup(c, job.queue(), job.groupKey());
        }
        String uniqueKey = uniqueKey(c, job);
        Params key = Params.of().str("unique_key", uniqueKey).lng("unique_for_ms", job.uniqueForMs());
        if (!sql.execute(c, Stmt.UNIQUE_KEY_CLAIM, key.bool("force", false))) {
            Long holder = single(sql.query(c, Stmt.UNIQUE_KEY_GET, Params.of().str("unique_key", uniqueKey),
                    (rs, cols) -> RowReader.lng(rs, cols, "job_id"))).orElse(null);
            Optional<JobRow> held = holder == null ? Optional.empty()
                    : single(sql.queryJobs(c, Stmt.JOB_GET, Params.of().lng("id", holder)));
            if (held.isPresent()) {
                return new Inserted(held.get(), false);
            }
            // the holder is gone (deleted, or purged by retention): the key is free for this job
            sql.execute(c, Stmt.UNIQUE_KEY_CLAIM, Params.of().str("unique_key", uniqueKey)
                    .lng("unique_for_ms", job.uniqueForMs()).bool("force", true));
        }
        Inserted answer = insertOrKeyHolder(c, job);
        sql.execute(c, Stmt.UNIQUE_KEY_SET_JOB, Params.of().str("unique_key", uniqueKey)
                .lng("job_id", answer.job().id()));
        return answer;
    }

    /**
     * Debounce, in the caller's transaction: takes the window's key (its row lock orders
     * same-key enqueues). A key still in its window names the window's job: that job gets this
     * enqueue's payload and priority, by the edit statement, which skips a row a claim holds and
     * changes only a job nobody holds (not created). A job gone, claimed or being claimed leaves
     * the key to this enqueue: a new window, a new job.
     */
    Inserted insertDebounced(Connection c, NewJob job, String windowKey, long windowMs) throws SQLException {
        if (!sql.execute(c, Stmt.UNIQUE_KEY_CLAIM, Params.of().str("unique_key", windowKey)
                .lng("unique_for_ms", windowMs).bool("force", false))) {
            Long holder = single(sql.query(c, Stmt.UNIQUE_KEY_GET, Params.of().str("unique_key", windowKey),
                    (rs, cols) -> RowReader.lng(rs, cols, "job_id"))).orElse(null);
            if (holder != null) {
                Optional<JobRow> edited = single(sql.queryJobs(c, Stmt.JOB_EDIT, Params.of().lng("id", holder)
                        .integer("priority", job.priority()).time("run_at", null).bool("run_now", false)
                        .str("payload", job.payload()).str("modified_by", job.createdBy())));
                if (edited.isPresent()) {
                    return new Inserted(edited.get(), false);
                }
            }
            sql.execute(c, Stmt.UNIQUE_KEY_CLAIM, Params.of().str("unique_key", windowKey)
                    .lng("unique_for_ms", windowMs).bool("force", true));
        }
        JobRow row = insert(c, job).orElseThrow(() -> new SQLException("a debounced job (no idempotency key) was "
                + "not inserted"));
        sql.execute(c, Stmt.UNIQUE_KEY_SET_JOB, Params.of().str("unique_key", windowKey).lng("job_id", row.id()));
        return new Inserted(row, true);
    }

    /**
     * The job's uniqueness key; a payload digest ("h:") as the engine's SQL enqueue computes it,
     * so that POST /jobs and the SQL enqueue share one window (unique_key_digest.sql).
     */
    private String uniqueKey(Connection c, NewJob job) throws SQLException {
        if (!job.uniqueKey().startsWith("h:")) {
            return job.uniqueKey(); // an idempotency key's: the same on every path
        }
        return single(sql.query(c, Stmt.UNIQUE_KEY_DIGEST, Params.of().str("queue", job.queue()).str("type", job.type())
                        .str("payload", job.payload()).str("unique_key", job.uniqueKey()),
                (rs, cols) -> rs.getString(cols.get("unique_key"))))
                .orElseThrow(() -> new SQLException("the database computed no uniqueness key"));
    }

    static Params params(NewJob job) {
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
                .str("group_key", job.groupKey())
                .str("traceparent", job.traceparent())
                .str("tracestate", job.tracestate())
                .str("fairness_key", job.fairnessKey())
                .integer("timeout_seconds", job.timeoutSeconds())
                .str("retry_policy", job.retryPolicy());
    }

    /** The jobs as job_insert_many reads them: JSON text columns as strings, times as ISO-8601 UTC. */
    static String manyJson(List<NewJob> jobs) {
        // sized for the payloads (1 KB each is common) and their escaping, so the text is not copied as it grows
        int size = 2;
        for (NewJob j : jobs) {
            int payload = j.payload() == null ? 0 : j.payload().length();
            size += 400 + payload + payload / 8 + (j.tags() == null ? 0 : j.tags().length());
        }
        return Json.array(jobs, size, (g, j) -> {
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
            g.writeStringField("run_at", j.runAt() == null ? null : j.runAt().truncatedTo(ChronoUnit.MICROS).toString());
            g.writeNumberField("delay_ms", j.delayMs());
            g.writeStringField("created_by", j.createdBy());
            g.writeStringField("webhook_url", j.webhookUrl());
            g.writeStringField("expires_at", j.expiresAt() == null ? null
                    : j.expiresAt().truncatedTo(ChronoUnit.MICROS).toString());
            g.writeStringField("traceparent", j.traceparent());
            g.writeStringField("tracestate", j.tracestate());
            g.writeStringField("fairness_key", j.fairnessKey());
            if (j.timeoutSeconds() != null) {
                g.writeNumberField("timeout_seconds", j.timeoutSeconds());
            }
            if (j.retryPolicy() != null) {
                g.writeStringField("retry_policy", j.retryPolicy());
            }
        });
    }
}
