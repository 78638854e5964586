package io.readpast.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.readpast.core.JobStatus;
import io.readpast.store.JobRow;

import java.time.Instant;

/**
 * A job as the API returns it. JSON columns (payload, tags, result, progress) are passed
 * through as stored text, not re-parsed. {@code leaseId} appears only in claim responses.
 */
@JsonPropertyOrder({"id", "queue", "type", "payload", "priority", "status", "attempt", "maxAttempts", "tags",
        "runAt", "createdAt", "updatedAt", "startedAt", "finishedAt", "workerId", "leaseId", "leaseExpiresAt",
        "heartbeatAt", "progress", "cancelRequested", "lastError", "result", "idempotencyKey", "createdBy",
        "modifiedBy"})
public record JobView(
        String id,
        String queue,
        String type,
        @JsonRawValue String payload,
        int priority,
        JobStatus status,
        int attempt,
        int maxAttempts,
        @JsonRawValue String tags,
        Instant runAt,
        Instant createdAt,
        Instant updatedAt,
        Instant startedAt,
        Instant finishedAt,
        String workerId,
        @JsonInclude(JsonInclude.Include.NON_NULL) String leaseId,
        Instant leaseExpiresAt,
        Instant heartbeatAt,
        @JsonRawValue String progress,
        boolean cancelRequested,
        String lastError,
        @JsonRawValue String result,
        String idempotencyKey,
        String createdBy,
        String modifiedBy) {

    public static JobView of(JobRow r) {
        return of(r, false);
    }

    public static JobView withLease(JobRow r) {
        return of(r, true);
    }

    private static JobView of(JobRow r, boolean withLease) {
        return new JobView(Long.toString(r.id()), r.queue(), r.type(), r.payload(), r.priority(),
                JobStatus.fromCode(r.status()), r.attempt(), r.maxAttempts(), r.tags() == null ? "[]" : r.tags(),
                r.dueAt(), r.createdAt(), r.updatedAt(), r.startedAt(), r.finishedAt(), r.workerId(),
                withLease ? r.leaseId() : null, r.leaseExpiresAt(), r.heartbeatAt(), r.progress(),
                r.cancelRequested(), r.lastError(), r.result(), r.idempotencyKey(), r.createdBy(), r.modifiedBy());
    }
}
