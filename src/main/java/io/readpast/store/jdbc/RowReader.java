package io.readpast.store.jdbc;

import io.readpast.store.Dialect;
import io.readpast.store.JobRow;
import io.readpast.store.QueueRow;
import io.readpast.store.ScheduleRow;
import io.readpast.store.WebhookRow;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * Reads rows into the store's row types, by column label: a column a statement does not return
 * reads as null (or the type's default). Lease and delivery ids are UUIDs, read in lower case
 * whatever the engine's text form.
 */
public final class RowReader {

    private final Dialect dialect;

    RowReader(Dialect dialect) {
        this.dialect = dialect;
    }

    public JobRow job(ResultSet rs, Map<String, Integer> cols) throws SQLException {
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
                uuid(rs, cols, "lease_id"),
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
                str(rs, cols, "group_key"),
                str(rs, cols, "traceparent"),
                str(rs, cols, "tracestate"),
                str(rs, cols, "fairness_key"),
                lng(rs, cols, "batch_id"),
                cols.containsKey("has_dependents") && rs.getBoolean(cols.get("has_dependents")),
                intOr(rs, cols, "deps_left", 0),
                integer(rs, cols, "timeout_seconds"),
                instant(rs, cols, "deadline_at"),
                str(rs, cols, "retry_policy"));
    }

    public io.readpast.store.BatchRow batch(ResultSet rs, Map<String, Integer> cols) throws SQLException {
        java.util.List<String> queues;
        try {
            queues = java.util.List.of(io.readpast.store.Json.mapper().readValue(str(rs, cols, "queues"), String[].class));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("A batch's queues are not a JSON array", e);
        }
        return new io.readpast.store.BatchRow(
                rs.getLong(cols.get("id")),
                queues,
                intOr(rs, cols, "fire_on", 0),
                str(rs, cols, "callback"),
                str(rs, cols, "webhook_url"),
                rs.getBoolean(cols.get("closed")),
                intOr(rs, cols, "total", 0),
                intOr(rs, cols, "succeeded", 0),
                intOr(rs, cols, "dead", 0),
                intOr(rs, cols, "cancelled", 0),
                rs.getBoolean(cols.get("has_dependents")),
                lng(rs, cols, "callback_job_id"),
                str(rs, cols, "created_by"),
                instant(rs, cols, "created_at"),
                instant(rs, cols, "updated_at"),
                instant(rs, cols, "closed_at"),
                instant(rs, cols, "finished_at"),
                instant(rs, cols, "fired_at"),
                instant(rs, cols, "cancelled_at"),
                lng(rs, cols, "waiting_count"),
                lng(rs, cols, "pending_count"),
                lng(rs, cols, "active_count"));
    }

    public QueueRow queue(ResultSet rs, Map<String, Integer> cols) throws SQLException {
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
                lng(rs, cols, "rate_period_ms"),
                new io.readpast.store.QueueSettings.Fairness(cols.containsKey("fair") && rs.getBoolean(cols.get("fair")),
                        integer(rs, cols, "key_max_workers"), integer(rs, cols, "key_rate_limit"),
                        lng(rs, cols, "key_rate_period_ms")),
                cols.containsKey("delete_succeeded") && rs.getBoolean(cols.get("delete_succeeded")));
    }

    public ScheduleRow schedule(ResultSet rs, Map<String, Integer> cols) throws SQLException {
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

    public WebhookRow webhook(ResultSet rs, Map<String, Integer> cols) throws SQLException {
        return new WebhookRow(
                rs.getLong(cols.get("id")),
                uuid(rs, cols, "delivery_id"),
                rs.getLong(cols.get("job_id")),
                str(rs, cols, "queue"),
                str(rs, cols, "event"),
                str(rs, cols, "url"),
                intOr(rs, cols, "status", 0),
                intOr(rs, cols, "attempt", 0),
                instant(rs, cols, "due_at"),
                uuid(rs, cols, "lease_id"),
                integer(rs, cols, "last_status"),
                str(rs, cols, "last_error"),
                instant(rs, cols, "created_at"),
                instant(rs, cols, "updated_at"),
                instant(rs, cols, "delivered_at"));
    }

    public static String str(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        return i == null ? null : rs.getString(i);
    }

    /** A UUID column in lower case (SQL Server's uniqueidentifier reads in upper case). */
    public static String uuid(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        String v = str(rs, cols, name);
        return v == null ? null : v.toLowerCase(Locale.ROOT);
    }

    public static int intOr(ResultSet rs, Map<String, Integer> cols, String name, int dflt) throws SQLException {
        Integer v = integer(rs, cols, name);
        return v == null ? dflt : v;
    }

    public static Integer integer(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        if (i == null) {
            return null;
        }
        int v = rs.getInt(i);
        return rs.wasNull() ? null : v;
    }

    public static Long lng(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        if (i == null) {
            return null;
        }
        long v = rs.getLong(i);
        return rs.wasNull() ? null : v;
    }

    public static Double dbl(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        if (i == null) {
            return null;
        }
        double v = rs.getDouble(i);
        return rs.wasNull() ? null : v;
    }

    public Instant instant(ResultSet rs, Map<String, Integer> cols, String name) throws SQLException {
        Integer i = cols.get(name);
        return i == null ? null : dialect.readInstant(rs, i);
    }
}
