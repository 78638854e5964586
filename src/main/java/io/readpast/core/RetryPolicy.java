package io.readpast.core;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with "equal jitter": half the step fixed, half random. */
public final class RetryPolicy {

    private RetryPolicy() {
    }

    /**
     * Delay before the next try after {@code attempt} tries (1-based): base * 2^(attempt-1),
     * capped, then jittered into [d/2, d].
     */
    public static long delayMs(int attempt, Duration base, Duration cap) {
        return delayMs(attempt, base.toMillis(), 2, cap.toMillis(), true);
    }

    /**
     * Delay before the next try after {@code attempt} tries by a job's own policy (JSON text:
     * {"baseSeconds", "factor", "capSeconds", "jitter"} or {"delaysSeconds": [...]}).
     */
    public static long delayMs(int attempt, String policy) {
        com.fasterxml.jackson.databind.JsonNode p;
        try {
            p = io.readpast.store.Json.mapper().readTree(policy);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("A job's stored retry policy is not JSON", e);
        }
        com.fasterxml.jackson.databind.JsonNode delays = p.path("delaysSeconds");
        if (delays.isArray() && !delays.isEmpty()) {
            int i = Math.min(Math.max(attempt - 1, 0), delays.size() - 1);
            return Math.round(delays.get(i).asDouble() * 1000);
        }
        return delayMs(attempt, Math.round(p.path("baseSeconds").asDouble() * 1000), p.path("factor").asDouble(2),
                Math.round(p.path("capSeconds").asDouble(3600) * 1000), p.path("jitter").asBoolean(true));
    }

    /** base * factor^(attempt-1), capped, with equal jitter when {@code jitter}. */
    static long delayMs(int attempt, long baseMs, double factor, long capMs, boolean jitter) {
        long base = Math.max(0, baseMs);
        long cap = Math.max(0, capMs);
        double raw = base * Math.pow(factor, Math.min(Math.max(attempt - 1, 0), 200));
        long step = raw >= cap ? cap : (long) raw;
        if (!jitter || step <= 1) {
            return step;
        }
        long half = step / 2;
        return half + ThreadLocalRandom.current().nextLong(step - half + 1);
    }

}
