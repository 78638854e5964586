package io.readpast.client;

import java.util.List;
import java.util.Map;

/** A job as the broker shows it; {@link #data()} has every field. */
public record JobView(Map<String, Object> data) {

    public String id() {
        return (String) data.get("id");
    }

    public String queue() {
        return (String) data.get("queue");
    }

    public String type() {
        return (String) data.get("type");
    }

    /** The decoded payload (Map, List, String, Long, Double, Boolean or null). */
    public Object payload() {
        return data.get("payload");
    }

    /** PENDING, WAITING, LEASED, PROCESSING, SUCCEEDED, DEAD or CANCELLED. */
    public String status() {
        return (String) data.get("status");
    }

    public int attempt() {
        return ((Number) data.getOrDefault("attempt", 0)).intValue();
    }

    public int maxAttempts() {
        return ((Number) data.getOrDefault("maxAttempts", 0)).intValue();
    }

    public String lastError() {
        return (String) data.get("lastError");
    }

    /** The error of each failed attempt ({@code GET /jobs/{id}} only): attempt, at, workerId, error. */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> errors() {
        Object e = data.get("errors");
        return e == null ? List.of() : (List<Map<String, Object>>) e;
    }

    public Object result() {
        return data.get("result");
    }

    public String traceparent() {
        return (String) data.get("traceparent");
    }

    public String tracestate() {
        return (String) data.get("tracestate");
    }

    public Object get(String field) {
        return data.get(field);
    }
}
