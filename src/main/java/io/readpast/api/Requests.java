package io.readpast.api;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/** Request bodies. Fields are boxed so that "absent" can be told from a value. */
public final class Requests {

    private Requests() {
    }

    public record Enqueue(String queue, String type, JsonNode payload, Integer priority, Long delaySeconds,
                          String runAt, List<String> tags, Integer maxAttempts, String idempotencyKey) {
    }

    public record Claim(String workerId, List<String> queues, Integer limit, Integer leaseSeconds, Integer waitSeconds) {
    }

    public record Progress(Integer percent, String message) {
    }

    public record Heartbeat(String leaseId, Integer leaseSeconds, Progress progress) {
    }

    public record Complete(String leaseId, JsonNode result) {
    }

    public record Fail(String leaseId, String error, Boolean retryable, Long retryAfterSeconds) {
    }

    public record Release(String leaseId) {
    }

    /** Items are parsed one by one, so that a malformed item fails only itself. */
    public record EnqueueBatch(List<JsonNode> jobs) {
    }

    public record CompleteItem(String id, String leaseId, JsonNode result) {
    }

    public record CompleteBatch(List<JsonNode> items) {
    }

    public record Requeue(JsonNode payload) {
    }

    public record Queue(Integer maxWorkers, Boolean paused, Boolean active, Integer leaseSeconds, Integer maxAttempts,
                        Long backoffBaseSeconds, Long backoffCapSeconds) {
    }
}
