package io.readpast.webhook;

import io.quarkus.runtime.annotations.RegisterForReflection;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The body of a delivery: its id, the event, the attempt, when the delivery was written, and
 * the job as GET /jobs/{id} shows it now (or, when the job was deleted since, what the delivery
 * itself knows of it); for the event batch.fired, the batch as GET /batches/{id} shows it, and
 * no job.
 */
@JsonPropertyOrder({"id", "event", "attempt", "createdAt", "job", "batch"})
@RegisterForReflection
public record WebhookPayload(String id, String event, int attempt, Instant createdAt,
                             @com.fasterxml.jackson.annotation.JsonInclude(
                                     com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) Object job,
                             @com.fasterxml.jackson.annotation.JsonInclude(
                                     com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) Object batch) {

    /** The event of a batch's webhook: its job id column holds the batch id. */
    public static final String BATCH_FIRED = "batch.fired";

    /** What a delivery knows of a job deleted since it was written (retention or DELETE). */
    static Map<String, Object> deletedJob(long id, String queue, String event) {
        Map<String, Object> gone = new LinkedHashMap<>();
        gone.put("id", Long.toString(id));
        gone.put("queue", queue);
        gone.put("status", event.equals("job.dead") ? "DEAD" : "SUCCEEDED");
        return gone;
    }
}
