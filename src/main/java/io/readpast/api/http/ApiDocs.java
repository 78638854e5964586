package io.readpast.api.http;

import io.readpast.http.Problem;

/**
 * Constants for the OpenAPI annotations: media types, the names of the reusable error
 * responses that {@link OpenApiDefinition} defines under {@code components/responses}, and the
 * JSON examples. Annotation values must be compile-time constants, so they live here rather
 * than being built at run time. Nothing here affects behaviour.
 */
public final class ApiDocs {

    private ApiDocs() {
    }

    // ---- media types -------------------------------------------------------------------------

    public static final String JSON = "application/json";
    public static final String PROBLEM = Problem.MEDIA_TYPE;

    /** Schema (components/schemas) of payloads and results: any JSON value. */
    public static final String ANY_VALUE = "AnyValue";
    public static final String PAYLOAD_FILTER = "PayloadFilter";

    // ---- reusable responses (components/responses), referenced with @APIResponse(ref = ...) ----

    /** 400: body not JSON of the expected shape, or a field or parameter missing or out of range. */
    public static final String BAD_REQUEST = "BadRequest";
    /** 401: no API key, or one the broker does not accept. */
    public static final String UNAUTHORIZED = "Unauthorized";
    /** 403: the key lacks the role the operation needs. */
    public static final String FORBIDDEN = "Forbidden";
    /** 404: no job with this id. */
    public static final String JOB_NOT_FOUND = "JobNotFound";
    /** 409: the caller does not hold the lease. */
    public static final String LEASE_CONFLICT = "LeaseConflict";
    /** 415: the body is not sent as application/json. */
    public static final String UNSUPPORTED_MEDIA_TYPE = "UnsupportedMediaType";
    /** 406: the Accept header allows no type the operation produces. */
    static final String NOT_ACCEPTABLE = "NotAcceptable";
    /** 413: the body is over quarkus.http.limits.max-body-size. */
    static final String TOO_LARGE = "ContentTooLarge";
    /** 503: the database is unavailable; Retry-After. */
    public static final String UNAVAILABLE = "Unavailable";

    /** The queue name rule of {@link Validate#queueName}, for schema descriptions. */
    public static final String NAME_RULE = "1-200 characters: letters, digits and . _ : - (starting with a letter or digit).";

    // ---- role notes for operation descriptions --------------------------------------------------

    public static final String ROLE_PRODUCER = "\n\nRole: producer (or admin).";
    public static final String ROLE_WORKER = "\n\nRole: worker (or admin).";
    public static final String ROLE_ADMIN = "\n\nRole: admin.";

    public static final String PREFER_MINIMAL = "RFC 7240: 'return=minimal' answers with the job's id and status only "
            + "(a batch: each item's id and status, without the job), instead of the whole job with its payload "
            + "echoed back; the answer then carries 'Preference-Applied: return=minimal'. Anything else: the whole job.";
    public static final String JOB_ID_PARAM = "Job id (a positive integer). Anything else is 404, like an unknown id.";

    public static final String QUEUE_NAME_PARAM = "Queue name: " + NAME_RULE;

    // ---- example values -------------------------------------------------------------------------

    static final String LEASE_ID = "3f2b8c1e-5d4a-4e6b-9a7c-1b2d3e4f5a6b";

    public static final String JOB_PENDING = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"PENDING\", \"attempt\": 0, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T12:00:00Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:00Z\", "
            + "\"startedAt\": null, \"finishedAt\": null, \"workerId\": null, \"leaseExpiresAt\": null, "
            + "\"heartbeatAt\": null, \"progress\": null, \"cancelRequested\": false, \"lastError\": null, "
            + "\"result\": null, \"idempotencyKey\": \"welcome-a@b.c\", \"createdBy\": \"shop\", "
            + "\"modifiedBy\": \"shop\"}";

    public static final String JOB_LEASED = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"LEASED\", \"attempt\": 1, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T12:00:00Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:05Z\", "
            + "\"startedAt\": null, \"finishedAt\": null, \"workerId\": \"w1\", \"leaseId\": \"" + LEASE_ID + "\", "
            + "\"leaseExpiresAt\": \"2026-11-30T12:01:05Z\", \"heartbeatAt\": null, \"progress\": null, "
            + "\"cancelRequested\": false, \"lastError\": null, \"result\": null, "
            + "\"idempotencyKey\": \"welcome-a@b.c\", \"createdBy\": \"shop\", \"modifiedBy\": \"mailer\"}";

    /** A leased job as anyone but its claimer sees it: the lease id is shown by the claim only. */
    public static final String JOB_LEASED_HIDDEN = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"LEASED\", \"attempt\": 1, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T12:00:00Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:05Z\", "
            + "\"startedAt\": null, \"finishedAt\": null, \"workerId\": \"w1\", "
            + "\"leaseExpiresAt\": \"2026-11-30T12:01:05Z\", \"heartbeatAt\": null, \"progress\": null, "
            + "\"cancelRequested\": false, \"lastError\": null, \"result\": null, "
            + "\"idempotencyKey\": \"welcome-a@b.c\", \"createdBy\": \"shop\", \"modifiedBy\": \"mailer\"}";

    public static final String JOB_SUCCEEDED = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"SUCCEEDED\", \"attempt\": 1, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T12:00:00Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:09Z\", "
            + "\"startedAt\": \"2026-11-30T12:00:06Z\", \"finishedAt\": \"2026-11-30T12:00:09Z\", "
            + "\"workerId\": \"w1\", \"leaseExpiresAt\": null, \"heartbeatAt\": \"2026-11-30T12:00:06Z\", "
            + "\"progress\": {\"percent\": 50, \"message\": \"rendered\"}, \"cancelRequested\": false, "
            + "\"lastError\": null, \"result\": {\"messageId\": \"abc\"}, \"idempotencyKey\": \"welcome-a@b.c\", "
            + "\"createdBy\": \"shop\", \"modifiedBy\": \"mailer\"}";

    public static final String THROUGHPUT = "{\"from\": \"2026-11-30T11:56:00Z\", \"to\": \"2026-11-30T12:01:00Z\", "
            + "\"bucketSeconds\": 60, \"total\": {\"succeeded\": [40, 52, 47, 61, 12], \"dead\": [0, 1, 0, 0, 0], "
            + "\"cancelled\": [0, 0, 0, 2, 0]}, \"queues\": ["
            + "{\"queue\": \"emails\", \"succeeded\": [30, 40, 35, 50, 9], \"dead\": [0, 1, 0, 0, 0], "
            + "\"cancelled\": [0, 0, 0, 2, 0]}, "
            + "{\"queue\": \"sms\", \"succeeded\": [10, 12, 12, 11, 3], \"dead\": [0, 0, 0, 0, 0], "
            + "\"cancelled\": [0, 0, 0, 0, 0]}]}";

    public static final String ME = "{\"name\": \"ops\", \"roles\": [\"admin\"], \"queues\": null, "
            + "\"authEnabled\": true}";

    public static final String ME_SCOPED = "{\"name\": \"mailer\", \"roles\": [\"worker\"], "
            + "\"queues\": [\"emails\", \"sms\"], \"authEnabled\": true}";

    /** GET /jobs/{id}: the job with its per-attempt errors. */
    public static final String JOB_DETAIL_SUCCEEDED = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"SUCCEEDED\", \"attempt\": 2, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T12:00:11Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:14Z\", "
            + "\"startedAt\": \"2026-11-30T12:00:06Z\", \"finishedAt\": \"2026-11-30T12:00:14Z\", "
            + "\"workerId\": \"w2\", \"leaseExpiresAt\": null, \"heartbeatAt\": \"2026-11-30T12:00:12Z\", "
            + "\"progress\": {\"percent\": 100, \"message\": \"sent\"}, \"cancelRequested\": false, "
            + "\"lastError\": \"SMTP timeout\", \"errors\": [{\"attempt\": 1, \"at\": \"2026-11-30T12:00:09Z\", "
            + "\"workerId\": \"w1\", \"error\": \"SMTP timeout\"}], \"result\": {\"messageId\": \"abc\"}, "
            + "\"idempotencyKey\": \"welcome-a@b.c\", \"createdBy\": \"shop\", \"modifiedBy\": \"mailer\"}";

    public static final String JOB_DETAIL_DEAD = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"DEAD\", \"attempt\": 2, "
            + "\"maxAttempts\": 2, \"tags\": [], \"runAt\": \"2026-11-30T12:00:11Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:01:12Z\", "
            + "\"startedAt\": \"2026-11-30T12:00:06Z\", \"finishedAt\": \"2026-11-30T12:01:12Z\", "
            + "\"workerId\": \"w2\", \"leaseExpiresAt\": null, \"heartbeatAt\": null, \"progress\": null, "
            + "\"cancelRequested\": false, \"lastError\": \"lease expired (worker w2)\", \"errors\": ["
            + "{\"attempt\": 1, \"at\": \"2026-11-30T12:00:09Z\", \"workerId\": \"w1\", \"error\": \"SMTP timeout\"}, "
            + "{\"attempt\": 2, \"at\": \"2026-11-30T12:01:12Z\", \"workerId\": \"w2\", "
            + "\"error\": \"lease expired (worker w2)\"}], \"result\": null, \"idempotencyKey\": null, "
            + "\"createdBy\": \"shop\", \"modifiedBy\": \"mailer\"}";

    public static final String JOB_RETRY = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"PENDING\", \"attempt\": 1, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T12:00:11Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:09Z\", "
            + "\"startedAt\": \"2026-11-30T12:00:06Z\", \"finishedAt\": null, \"workerId\": null, "
            + "\"leaseExpiresAt\": null, \"heartbeatAt\": null, \"progress\": null, \"cancelRequested\": false, "
            + "\"lastError\": \"SMTP timeout\", \"result\": null, \"idempotencyKey\": \"welcome-a@b.c\", "
            + "\"createdBy\": \"shop\", \"modifiedBy\": \"mailer\"}";

    public static final String JOB_DEAD = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"DEAD\", \"attempt\": 3, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T12:00:20Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:25Z\", "
            + "\"startedAt\": \"2026-11-30T12:00:21Z\", \"finishedAt\": \"2026-11-30T12:00:25Z\", "
            + "\"workerId\": \"w1\", \"leaseExpiresAt\": null, \"heartbeatAt\": null, \"progress\": null, "
            + "\"cancelRequested\": false, \"lastError\": \"SMTP timeout\", \"result\": null, "
            + "\"idempotencyKey\": \"welcome-a@b.c\", \"createdBy\": \"shop\", \"modifiedBy\": \"mailer\"}";

    public static final String JOB_CANCEL_REQUESTED = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"PROCESSING\", \"attempt\": 1, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T12:00:00Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:08Z\", "
            + "\"startedAt\": \"2026-11-30T12:00:06Z\", \"finishedAt\": null, \"workerId\": \"w1\", "
            + "\"leaseExpiresAt\": \"2026-11-30T12:01:06Z\", \"heartbeatAt\": \"2026-11-30T12:00:06Z\", "
            + "\"progress\": null, \"cancelRequested\": true, \"lastError\": null, \"result\": null, "
            + "\"idempotencyKey\": \"welcome-a@b.c\", \"createdBy\": \"shop\", \"modifiedBy\": \"admin\"}";

    public static final String JOB_REQUEUED = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.example\"}, \"priority\": 5, \"status\": \"PENDING\", \"attempt\": 0, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T13:00:00Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T13:00:00Z\", "
            + "\"startedAt\": null, \"finishedAt\": null, \"workerId\": null, \"leaseExpiresAt\": null, "
            + "\"heartbeatAt\": null, \"progress\": null, \"cancelRequested\": false, \"lastError\": null, "
            + "\"result\": null, \"idempotencyKey\": \"welcome-a@b.c\", \"createdBy\": \"shop\", "
            + "\"modifiedBy\": \"admin\"}";

    public static final String ENQUEUE_BODY = "{\"queue\": \"emails\", \"type\": \"send\", \"payload\": {\"to\": \"a@b.c\"}, "
            + "\"priority\": 5, \"tags\": [\"welcome\"], \"maxAttempts\": 3, \"delaySeconds\": 0, "
            + "\"idempotencyKey\": \"welcome-a@b.c\"}";

    public static final String ENQUEUE_BODY_MINIMAL = "{\"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}}";

    public static final String ENQUEUE_BODY_SCHEDULED = "{\"queue\": \"reports\", \"type\": \"daily\", "
            + "\"payload\": {\"day\": \"2026-11-30\"}, \"runAt\": \"2026-12-01T06:00:00Z\"}";

    public static final String ENQUEUE_BATCH_BODY = "{\"jobs\": [{\"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}}, {\"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"d@e.f\"}, \"idempotencyKey\": \"welcome-d@e.f\"}, "
            + "{\"queue\": \"emails\", \"type\": \"send\", \"delaySeconds\": 60, "
            + "\"runAt\": \"2030-01-01T12:00:00Z\"}]}";

    public static final String ENQUEUE_BATCH_RESULT = "{\"succeeded\": 2, \"failed\": 1, \"results\": ["
            + "{\"index\": 0, \"id\": \"43\", \"status\": 201, \"job\": {\"id\": \"43\", \"queue\": \"emails\", "
            + "\"type\": \"send\", \"payload\": {\"to\": \"a@b.c\"}, \"priority\": 0, \"status\": \"PENDING\", "
            + "\"attempt\": 0, \"maxAttempts\": 5, \"tags\": [], \"runAt\": \"2026-11-30T12:00:00Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:00Z\", "
            + "\"startedAt\": null, \"finishedAt\": null, \"workerId\": null, \"leaseExpiresAt\": null, "
            + "\"heartbeatAt\": null, \"progress\": null, \"cancelRequested\": false, \"lastError\": null, "
            + "\"result\": null, \"idempotencyKey\": null, \"createdBy\": \"shop\", \"modifiedBy\": \"shop\"}}, "
            + "{\"index\": 1, \"id\": \"17\", \"status\": 200, \"job\": {\"id\": \"17\", \"queue\": \"emails\", "
            + "\"type\": \"send\", \"payload\": {\"to\": \"d@e.f\"}, \"priority\": 0, \"status\": \"LEASED\", "
            + "\"attempt\": 1, \"maxAttempts\": 5, \"tags\": [], \"runAt\": \"2026-11-30T11:59:00Z\", "
            + "\"createdAt\": \"2026-11-30T11:59:00Z\", \"updatedAt\": \"2026-11-30T11:59:30Z\", "
            + "\"startedAt\": null, \"finishedAt\": null, \"workerId\": \"w1\", "
            + "\"leaseExpiresAt\": \"2026-11-30T12:00:30Z\", \"heartbeatAt\": null, \"progress\": null, "
            + "\"cancelRequested\": false, \"lastError\": null, \"result\": null, "
            + "\"idempotencyKey\": \"welcome-d@e.f\", \"createdBy\": \"shop\", \"modifiedBy\": \"mailer\"}}, "
            + "{\"index\": 2, \"status\": 400, \"error\": {\"type\": \"urn:readpast:problem:invalid-request\", "
            + "\"title\": \"Invalid request\", \"status\": 400, "
            + "\"detail\": \"Give either 'delaySeconds' or 'runAt', not both.\"}}]}";

    public static final String COMPLETE_BATCH_BODY = "{\"items\": [{\"id\": \"42\", \"leaseId\": \"" + LEASE_ID + "\", "
            + "\"result\": {\"messageId\": \"abc\"}}, {\"id\": \"43\", \"leaseId\": "
            + "\"0c9d7f1a-2b3c-4d5e-8f90-a1b2c3d4e5f6\"}]}";

    public static final String COMPLETE_BATCH_RESULT = "{\"succeeded\": 1, \"failed\": 1, \"results\": ["
            + "{\"index\": 0, \"id\": \"42\", \"status\": 200}, {\"index\": 1, \"id\": \"43\", \"status\": 409, "
            + "\"error\": {\"type\": \"urn:readpast:problem:lease-conflict\", \"title\": \"Lease not held\", "
            + "\"status\": 409, \"detail\": \"Job 43 is not leased with this leaseId: the lease expired and the job "
            + "was re-leased, was released, or the job already finished.\"}}]}";

    public static final String CLAIM_BODY = "{\"workerId\": \"w1\", \"queues\": [\"emails\"], \"limit\": 10, "
            + "\"leaseSeconds\": 60}";

    public static final String CLAIM_BODY_LONG_POLL = "{\"workerId\": \"w1\", \"queues\": [\"emails\", \"reports\"], "
            + "\"limit\": 10, \"leaseSeconds\": 60, \"waitSeconds\": 20}";

    public static final String CLAIMED = "{\"jobs\": [" + JOB_LEASED + "]}";

    public static final String CLAIMED_NONE = "{\"jobs\": []}";

    public static final String CLAIMED_UNKNOWN = "{\"jobs\": [], \"unknownQueues\": [\"emials\"]}";

    public static final String HEARTBEAT_BODY = "{\"leaseId\": \"" + LEASE_ID + "\", \"leaseSeconds\": 60, "
            + "\"progress\": {\"percent\": 50, \"message\": \"rendered\"}}";

    public static final String HEARTBEAT_ACK = "{\"id\": \"42\", \"status\": \"PROCESSING\", "
            + "\"leaseExpiresAt\": \"2026-11-30T12:01:06Z\", \"cancelRequested\": false}";

    public static final String COMPLETE_BODY = "{\"leaseId\": \"" + LEASE_ID + "\", \"result\": {\"messageId\": \"abc\"}}";

    public static final String FAIL_BODY = "{\"leaseId\": \"" + LEASE_ID + "\", \"error\": \"SMTP timeout\", "
            + "\"retryable\": true}";

    public static final String FAIL_BODY_FATAL = "{\"leaseId\": \"" + LEASE_ID + "\", \"error\": \"no such mailbox\", "
            + "\"retryable\": false}";

    public static final String RELEASE_BODY = "{\"leaseId\": \"" + LEASE_ID + "\"}";

    public static final String TRACEPARENT = "W3C Trace Context of the producer: stored with the job and returned to "
            + "the worker that claims it, so that the worker's spans join the producer's trace. One that does not "
            + "parse is ignored (the job has no trace), never refused.";

    public static final String TRACESTATE = "W3C tracestate that goes with traceparent; at most 512 characters and 32 "
            + "members, else ignored.";

    public static final String RELEASE_DELAYED_BODY = "{\"leaseId\": \"" + LEASE_ID + "\", \"delaySeconds\": 30}";

    private static final String LEASE_CONFLICT_43 = "{\"type\": \"urn:readpast:problem:lease-conflict\", "
            + "\"title\": \"Lease not held\", \"status\": 409, \"detail\": \"Job 43 is not leased with this leaseId: "
            + "the lease expired and the job was re-leased, was released, or the job already finished.\"}";

    public static final String HEARTBEAT_BATCH_BODY = "{\"items\": [{\"id\": \"42\", \"leaseId\": \"" + LEASE_ID + "\", "
            + "\"leaseSeconds\": 60, \"progress\": {\"percent\": 50}}, {\"id\": \"43\", \"leaseId\": "
            + "\"0c9d7f1a-2b3c-4d5e-8f90-a1b2c3d4e5f6\"}]}";

    public static final String HEARTBEAT_BATCH_RESULT = "{\"succeeded\": 1, \"failed\": 1, \"results\": ["
            + "{\"index\": 0, \"id\": \"42\", \"status\": 200, \"jobStatus\": \"PROCESSING\", "
            + "\"leaseExpiresAt\": \"2026-11-30T12:01:06Z\", \"cancelRequested\": false}, "
            + "{\"index\": 1, \"id\": \"43\", \"status\": 409, \"error\": " + LEASE_CONFLICT_43 + "}]}";

    public static final String FAIL_BATCH_BODY = "{\"items\": [{\"id\": \"42\", \"leaseId\": \"" + LEASE_ID + "\", "
            + "\"error\": \"SMTP timeout\", \"retryAfterSeconds\": 30}, {\"id\": \"44\", \"leaseId\": "
            + "\"7d1e2f3a-4b5c-4d6e-9f01-a2b3c4d5e6f7\", \"error\": \"bad address\", \"retryable\": false}]}";

    public static final String FAIL_BATCH_RESULT = "{\"succeeded\": 2, \"failed\": 0, \"results\": ["
            + "{\"index\": 0, \"id\": \"42\", \"status\": 200, \"jobStatus\": \"PENDING\"}, "
            + "{\"index\": 1, \"id\": \"44\", \"status\": 200, \"jobStatus\": \"DEAD\"}]}";

    public static final String RELEASE_BATCH_BODY = "{\"items\": [{\"id\": \"42\", \"leaseId\": \"" + LEASE_ID + "\", "
            + "\"delaySeconds\": 30}, {\"id\": \"43\", \"leaseId\": \"0c9d7f1a-2b3c-4d5e-8f90-a1b2c3d4e5f6\"}]}";

    public static final String RELEASE_BATCH_RESULT = "{\"succeeded\": 1, \"failed\": 1, \"results\": ["
            + "{\"index\": 0, \"id\": \"42\", \"status\": 200, \"jobStatus\": \"PENDING\"}, "
            + "{\"index\": 1, \"id\": \"43\", \"status\": 409, \"error\": " + LEASE_CONFLICT_43 + "}]}";

    public static final String REQUEUE_BODY = "{\"payload\": {\"to\": \"a@b.example\"}}";

    public static final String EDIT_BODY = "{\"priority\": 9, \"runAt\": \"2030-01-01T12:00:00Z\", "
            + "\"payload\": {\"to\": \"b@c.example\"}}";

    public static final String JOB_EDITED = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"b@c.example\"}, \"priority\": 9, \"status\": \"PENDING\", \"attempt\": 0, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2030-01-01T12:00:00Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:10:00Z\", "
            + "\"startedAt\": null, \"finishedAt\": null, \"workerId\": null, \"leaseExpiresAt\": null, "
            + "\"heartbeatAt\": null, \"progress\": null, \"cancelRequested\": false, \"lastError\": null, "
            + "\"result\": null, \"idempotencyKey\": \"welcome-a@b.c\", \"createdBy\": \"shop\", "
            + "\"modifiedBy\": \"admin\"}";

    public static final String JOB_RUN_NOW = "{\"id\": \"42\", \"queue\": \"emails\", \"type\": \"send\", "
            + "\"payload\": {\"to\": \"a@b.c\"}, \"priority\": 5, \"status\": \"PENDING\", \"attempt\": 1, "
            + "\"maxAttempts\": 3, \"tags\": [\"welcome\"], \"runAt\": \"2026-11-30T12:10:00Z\", "
            + "\"createdAt\": \"2026-11-30T12:00:00Z\", \"updatedAt\": \"2026-11-30T12:10:00Z\", "
            + "\"startedAt\": \"2026-11-30T12:00:06Z\", \"finishedAt\": null, \"workerId\": null, "
            + "\"leaseExpiresAt\": null, \"heartbeatAt\": null, \"progress\": null, \"cancelRequested\": false, "
            + "\"lastError\": \"SMTP timeout\", \"result\": null, "
            + "\"idempotencyKey\": \"welcome-a@b.c\", \"createdBy\": \"shop\", \"modifiedBy\": \"admin\"}";

    public static final String BULK_BODY = "{\"action\": \"requeue\", \"filter\": {\"queue\": \"emails\", "
            + "\"status\": \"DEAD\", \"error\": \"timeout\", \"finishedAfter\": \"2026-11-30T00:00:00Z\"}, "
            + "\"limit\": 1000}";

    public static final String BULK_DRY_RUN_BODY = "{\"action\": \"cancel\", \"filter\": {\"status\": \"PENDING\", "
            + "\"payload\": {\"customer\": \"acme\"}}, \"dryRun\": true}";

    public static final String BULK_RESULT = "{\"action\": \"requeue\", \"dryRun\": false, \"matched\": 1000, "
            + "\"eligible\": 1000, \"changed\": 999, \"skipped\": 1, \"next\": \"31877\"}";

    public static final String PAGE = "{\"jobs\": [" + JOB_DEAD + "], \"next\": \"42\"}";

    public static final String PAGE_LAST = "{\"jobs\": [], \"next\": null}";

    public static final String QUEUE_BODY = "{\"maxWorkers\": 5, \"paused\": false, \"leaseSeconds\": 60, "
            + "\"maxAttempts\": 3, \"backoffBaseSeconds\": 2, \"backoffCapSeconds\": 600}";

    public static final String QUEUE_VIEW = "{\"name\": \"emails\", \"maxWorkers\": 5, \"paused\": false, \"active\": true, "
            + "\"leaseSeconds\": 60, \"maxAttempts\": 3, \"backoffBaseSeconds\": 2, \"backoffCapSeconds\": 600, "
            + "\"pending\": 120, \"scheduled\": 4, \"leased\": 3, \"processing\": 2, \"dead\": 1, "
            + "\"lagSeconds\": 1.25, \"createdAt\": \"2026-11-01T09:00:00Z\", \"updatedAt\": \"2026-11-30T12:00:00Z\", "
            + "\"onSuccess\": \"archive\"}";

    public static final String QUEUE_VIEW_PAUSED = "{\"name\": \"emails\", \"maxWorkers\": 5, \"paused\": true, "
            + "\"active\": true, \"leaseSeconds\": 60, \"maxAttempts\": 3, \"backoffBaseSeconds\": 2, "
            + "\"backoffCapSeconds\": 600, \"pending\": 120, \"scheduled\": 4, \"leased\": 3, \"processing\": 2, "
            + "\"dead\": 1, \"lagSeconds\": 1.25, \"createdAt\": \"2026-11-01T09:00:00Z\", "
            + "\"updatedAt\": \"2026-11-30T12:00:00Z\", \"onSuccess\": \"archive\"}";

    public static final String QUEUE_LIST = "{\"queues\": [" + QUEUE_VIEW + ", {\"name\": \"reports\", \"maxWorkers\": null, "
            + "\"paused\": false, \"active\": true, \"leaseSeconds\": null, \"maxAttempts\": null, "
            + "\"backoffBaseSeconds\": null, \"backoffCapSeconds\": null, \"pending\": 0, \"scheduled\": 1, "
            + "\"leased\": 0, \"processing\": 0, \"dead\": 0, \"lagSeconds\": null, "
            + "\"createdAt\": \"2026-11-02T09:00:00Z\", \"updatedAt\": \"2026-11-02T09:00:00Z\", "
            + "\"onSuccess\": \"delete\"}]}";

    public static final String QUEUE_KEYS = "{\"queue\": \"reports\", \"fairness\": \"round-robin\", \"keyMaxWorkers\": 2, "
            + "\"keys\": [{\"key\": \"tenant-7\", \"pending\": 1200, \"active\": 2}, "
            + "{\"key\": \"tenant-9\", \"pending\": 3, \"active\": 1}]}";

    public static final String KEY_BODY = "{\"name\": \"mailer\", \"roles\": [\"worker\"], "
            + "\"queues\": [\"emails\", \"sms\"]}";

    public static final String KEY_CREATED = "{\"key\": \"rp_3hVq9mX0aZ8cYtK2bN4fR7uW1eD6gJ5sL0pQ9vC3xA\", "
            + "\"name\": \"mailer\", \"roles\": [\"worker\"], \"queues\": [\"emails\", \"sms\"], "
            + "\"origin\": \"api\", \"createdBy\": \"ops\", \"createdAt\": \"2026-11-30T12:00:00Z\"}";

    public static final String KEY_LIST = "{\"keys\": [{\"name\": \"ops\", \"roles\": [\"admin\"], \"queues\": null, "
            + "\"origin\": \"configured\", \"createdBy\": null, \"createdAt\": null}, "
            + "{\"name\": \"bootstrap-admin\", \"roles\": [\"admin\"], \"queues\": null, "
            + "\"origin\": \"generated\", \"createdBy\": null, \"createdAt\": \"2026-11-01T09:00:00Z\"}, "
            + "{\"name\": \"mailer\", \"roles\": [\"worker\"], \"queues\": [\"emails\", \"sms\"], "
            + "\"origin\": \"api\", \"createdBy\": \"ops\", \"createdAt\": \"2026-11-30T12:00:00Z\"}]}";

    // ---- problem examples -----------------------------------------------------------------------

    static final String PROBLEM_INVALID = "{\"type\": \"urn:readpast:problem:invalid-request\", "
            + "\"title\": \"Invalid request\", \"status\": 400, \"detail\": \"'queue' is required.\", "
            + "\"instance\": \"/jobs\"}";

    public static final String PROBLEM_MALFORMED = "{\"type\": \"urn:readpast:problem:malformed-json\", "
            + "\"title\": \"Malformed request body\", \"status\": 400, \"detail\": \"Unknown field 'queueName'.\", "
            + "\"instance\": \"/jobs\"}";

    static final String PROBLEM_UNAUTHORIZED = "{\"type\": \"urn:readpast:problem:unauthorized\", "
            + "\"title\": \"Unauthorized\", \"status\": 401, "
            + "\"detail\": \"Send an API key as 'Authorization: Bearer <key>'.\", \"instance\": \"/jobs\"}";

    public static final String PROBLEM_FORBIDDEN_ROLE = "{\"type\": \"urn:readpast:problem:forbidden\", "
            + "\"title\": \"Forbidden\", \"status\": 403, "
            + "\"detail\": \"This needs the admin role; the key 'mailer' has worker.\", \"instance\": \"/queues\"}";

    public static final String PROBLEM_FORBIDDEN_QUEUE = "{\"type\": \"urn:readpast:problem:forbidden\", "
            + "\"title\": \"Forbidden\", \"status\": 403, "
            + "\"detail\": \"This API key may not use queue 'billing'.\", \"instance\": \"/jobs\"}";

    public static final String PROBLEM_JOB_NOT_FOUND = "{\"type\": \"urn:readpast:problem:not-found\", "
            + "\"title\": \"Not found\", \"status\": 404, \"detail\": \"No job with id 42.\", "
            + "\"instance\": \"/jobs/42\"}";

    public static final String PROBLEM_QUEUE_NOT_FOUND = "{\"type\": \"urn:readpast:problem:not-found\", "
            + "\"title\": \"Not found\", \"status\": 404, \"detail\": \"No queue named 'emails'.\", "
            + "\"instance\": \"/queues/emails\"}";

    public static final String PROBLEM_QUEUE_IN_USE = "{\"type\": \"urn:readpast:problem:state-conflict\", "
            + "\"title\": \"Conflict\", \"status\": 409, \"detail\": \"Queue 'emails' cannot be deleted: it has 3 "
            + "unfinished jobs (cancel them first, or let them finish).\", \"instance\": \"/queues/emails\"}";

    public static final String PROBLEM_KEY_OTHER_QUEUE = "{\"type\": \"urn:readpast:problem:state-conflict\", "
            + "\"title\": \"Conflict\", \"status\": 409, \"detail\": \"This idempotency key is held by a live job of "
            + "another queue.\", \"instance\": \"/jobs\"}";

    public static final String PROBLEM_KEY_NOT_FOUND = "{\"type\": \"urn:readpast:problem:not-found\", "
            + "\"title\": \"Not found\", \"status\": 404, \"detail\": \"No stored API key named 'mailer'.\", "
            + "\"instance\": \"/keys/mailer\"}";

    public static final String PROBLEM_KEY_EXISTS = "{\"type\": \"urn:readpast:problem:state-conflict\", "
            + "\"title\": \"Conflict\", \"status\": 409, \"detail\": \"A key named 'mailer' exists already.\", "
            + "\"instance\": \"/keys\"}";

    public static final String PROBLEM_KEY_CONFIGURED = "{\"type\": \"urn:readpast:problem:state-conflict\", "
            + "\"title\": \"Conflict\", \"status\": 409, \"detail\": \"Key 'ops' is configured "
            + "(READPAST_API_KEYS or READPAST_API_KEYS_FILE): remove it there.\", \"instance\": \"/keys/ops\"}";

    static final String PROBLEM_LEASE_CONFLICT = "{\"type\": \"urn:readpast:problem:lease-conflict\", "
            + "\"title\": \"Lease not held\", \"status\": 409, \"detail\": \"Job 42 is not leased with this leaseId: "
            + "the lease expired and the job was re-leased, was released, or the job already finished.\", "
            + "\"instance\": \"/jobs/42/complete\"}";

    public static final String PROBLEM_CANCEL_CONFLICT = "{\"type\": \"urn:readpast:problem:state-conflict\", "
            + "\"title\": \"Conflict\", \"status\": 409, "
            + "\"detail\": \"Job 42 is SUCCEEDED and can no longer be cancelled.\", \"instance\": \"/jobs/42/cancel\"}";

    public static final String PROBLEM_REQUEUE_CONFLICT = "{\"type\": \"urn:readpast:problem:state-conflict\", "
            + "\"title\": \"Conflict\", \"status\": 409, "
            + "\"detail\": \"Job 42 is PENDING; only DEAD or CANCELLED jobs can be requeued.\", "
            + "\"instance\": \"/jobs/42/requeue\"}";

    public static final String PROBLEM_EDIT_CONFLICT = "{\"type\": \"urn:readpast:problem:state-conflict\", "
            + "\"title\": \"Conflict\", \"status\": 409, "
            + "\"detail\": \"Job 42 is LEASED; only a PENDING or WAITING job (nobody holds it) can be edited.\", "
            + "\"instance\": \"/jobs/42\"}";

    public static final String PROBLEM_PURGE_CONFLICT = "{\"type\": \"urn:readpast:problem:state-conflict\", "
            + "\"title\": \"Conflict\", \"status\": 409, "
            + "\"detail\": \"Job 42 is LEASED; cancel it first, only finished jobs can be deleted.\", "
            + "\"instance\": \"/jobs/42\"}";

    static final String PROBLEM_UNSUPPORTED = "{\"type\": \"urn:readpast:problem:unsupported-media-type\", "
            + "\"title\": \"Unsupported Media Type\", "
            + "\"status\": 415, \"detail\": \"Send the body as application/json.\", \"instance\": \"/jobs\"}";

    static final String PROBLEM_NOT_ACCEPTABLE = "{\"type\": \"urn:readpast:problem:not-acceptable\", "
            + "\"title\": \"Not Acceptable\", \"status\": 406, "
            + "\"detail\": \"This resource produces application/json.\", \"instance\": \"/jobs/42\"}";

    static final String PROBLEM_TOO_LARGE = "{\"type\": \"urn:readpast:problem:body-too-large\", "
            + "\"title\": \"Content Too Large\", \"status\": 413, "
            + "\"detail\": \"The request body is larger than this broker accepts (quarkus.http.limits.max-body-size, "
            + "10485760 bytes); send smaller batches.\", \"instance\": \"/jobs/batch\"}";

    static final String PROBLEM_UNAVAILABLE = "{\"type\": \"urn:readpast:problem:database-unavailable\", "
            + "\"title\": \"Service unavailable\", \"status\": 503, "
            + "\"detail\": \"The database is not reachable right now; retry shortly.\", \"instance\": \"/claim\"}";
}
