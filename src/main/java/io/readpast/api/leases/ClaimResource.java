package io.readpast.api.leases;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.JobBodies;
import io.readpast.api.http.JobView;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.api.http.Validate;
import io.readpast.http.Problem;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Leases;
import io.readpast.core.Queues;
import io.readpast.core.LongPollClaims;
import io.readpast.store.JobRow;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.readpast.core.BrokerException;
import io.readpast.security.Allowed;
import io.readpast.security.Caller;
import io.readpast.security.Role;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Workers lease batches of jobs. */
@Path("/claim")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class ClaimResource {

    /** A worker acknowledging its last batch and asking for the next one. */
    static final String CLAIM_BODY_ACK = "{\"workerId\": \"w1\", \"queues\": [\"emails\"], \"limit\": 10, "
            + "\"leaseSeconds\": 60, \"ack\": [{\"id\": \"41\", \"leaseId\": \"9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a\", "
            + "\"result\": {\"messageId\": \"abc\"}}, {\"id\": \"40\", \"leaseId\": "
            + "\"5c1d9e2f-7a3b-4c8d-8e1f-2a3b4c5d6e7f\"}]}";
    static final String CLAIMED_WITH_ACKS = "{\"jobs\": [" + ApiDocs.JOB_LEASED + "], \"acks\": ["
            + "{\"index\": 0, \"id\": \"41\", \"status\": 200}, "
            + "{\"index\": 1, \"id\": \"40\", \"status\": 409, \"error\": {\"type\": "
            + "\"urn:readpast:problem:lease-conflict\", \"title\": \"Lease not held\", \"status\": 409, "
            + "\"detail\": \"Job 40 is not leased with this leaseId: the lease expired and the job was re-leased, "
            + "was released, or the job already finished.\"}}]}";

    private final ReadpastConfig config;
    private final Caller caller;
    private final LongPollClaims claims;
    private final Queues queueBook;
    private final com.fasterxml.jackson.databind.ObjectMapper mapper;
    private final JobBodies bodies;
    private final io.readpast.ops.JobTracing tracing;
    private final io.readpast.core.Leases leases;

    public ClaimResource(ReadpastConfig config, Caller caller, LongPollClaims claims, Queues queueBook,
                         com.fasterxml.jackson.databind.ObjectMapper mapper, JobBodies bodies,
                         io.readpast.ops.JobTracing tracing, io.readpast.core.Leases leases) {
        this.tracing = tracing;
        this.leases = leases;
        this.config = config;
        this.caller = caller;
        this.claims = claims;
        this.queueBook = queueBook;
        this.mapper = mapper;
        this.bodies = bodies;
    }

    @POST
    @RunOnVirtualThread
    @Allowed(Role.WORKER)
    @Tag(name = "Workers")
    @Operation(operationId = "claimJobs", summary = "Lease up to 'limit' claimable jobs",
            description = "Skips rows other claims hold; honours priority, due time, paused queues and maxWorkers. "
                    + "Each job comes with a fresh leaseId; {\"jobs\": []} when nothing is claimable. "
                    + "With waitSeconds (long poll), a claim that finds nothing waits up to that many seconds and "
                    + "answers as soon as a job becomes claimable, or with {\"jobs\": []} at the deadline. "
                    + "A queue-scoped key claims only from its queues (all of them when 'queues' is absent; "
                    + "naming another queue is 403). An empty answer lists in 'unknownQueues' the named queues "
                    + "that do not exist (never enqueued to, no settings): most likely mistyped names. Ack and "
                    + "claim: with 'ack', the jobs listed there are completed first, in the same transaction as "
                    + "the claim (one request instead of POST /jobs/complete and POST /claim), and answered one by "
                    + "one in 'acks'; a worker sends its finished batch with its request for the next one. Acks "
                    + "are committed before any long-poll wait." + ApiDocs.ROLE_WORKER)
    @org.eclipse.microprofile.openapi.annotations.parameters.RequestBody(required = true,
            description = "Who claims, from which queues, how many, for how long.",
            content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = ApiDocs.JSON,
                    schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(
                            implementation = Requests.Claim.class),
                    examples = {
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "claim",
                                    value = ApiDocs.CLAIM_BODY),
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "longPoll",
                                    summary = "Wait up to 20 s for work", value = ApiDocs.CLAIM_BODY_LONG_POLL),
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "anyQueue",
                                    summary = "One job from any queue", value = "{\"workerId\": \"w1\"}"),
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "ackAndClaim",
                                    summary = "Complete the last batch and lease the next", value = CLAIM_BODY_ACK)}))
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "200",
            description = "The leased jobs (LEASED, each with its leaseId), best first; empty when nothing was "
                    + "claimable. With 'ack': also one answer per acknowledgement in 'acks' (a refused ack does "
                    + "not stop the claim).",
            content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = ApiDocs.JSON,
                    schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(
                            implementation = Responses.Claimed.class),
                    examples = {
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "claimed",
                                    value = ApiDocs.CLAIMED),
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "nothing",
                                    summary = "Nothing claimable", value = ApiDocs.CLAIMED_NONE),
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "unknownQueue",
                                    summary = "A named queue does not exist", value = ApiDocs.CLAIMED_UNKNOWN),
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "ackAndClaim",
                                    summary = "Acks answered, next job leased", value = CLAIMED_WITH_ACKS)}))
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "400",
            ref = ApiDocs.BAD_REQUEST)
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "401",
            ref = ApiDocs.UNAUTHORIZED)
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "403",
            description = "The key does not have the worker role, or 'queues' names a queue outside the key's scope.",
            content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = ApiDocs.PROBLEM,
                    schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = Problem.class),
                    examples = {
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "role",
                                    value = ApiDocs.PROBLEM_FORBIDDEN_ROLE),
                            @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "queue",
                                    value = ApiDocs.PROBLEM_FORBIDDEN_QUEUE)}))
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "415",
            ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "503",
            ref = ApiDocs.UNAVAILABLE)
    public Responses.Claimed claim(Requests.Claim body, @jakarta.ws.rs.core.Context io.vertx.core.http.HttpServerRequest http) {
        Requests.Claim b = Validate.body(body);
        String workerId = Validate.text("workerId", b.workerId(), Validate.NAME_MAX, true);
        int limit = Validate.range("limit", b.limit(), 1, 1, config.limits().claimMax());
        Integer lease = Validate.optionalRange("leaseSeconds", b.leaseSeconds(),
                config.limits().leaseMinSeconds(), config.limits().leaseMaxSeconds());
        // a queue-scoped key claims only from its queues: all of them by default
        var queues = caller.requireQueues(Validate.queueList("queues", b.queues()));
        List<String> types = Validate.typeList("types", b.types());
        int wait = Validate.range("waitSeconds", b.waitSeconds(), 0, 0, 30);
        java.time.Instant start = java.time.Instant.now();
        if (b.ack() == null) {
            List<JobRow> jobs = givenBackIfGone(http, claims.claim(workerId, queues, types, limit, lease, caller.name(),
                    wait));
            tracing.manyJobs("claim", jobs, start);
            return new Responses.Claimed(jobs.stream().map(JobView::withLease).toList(),
                    jobs.isEmpty() ? queueBook.unknown(queues, workerId) : List.of(), null);
        }
        if (b.ack().size() > config.limits().batchMax()) {
            throw BrokerException.invalid("'ack' must hold at most " + config.limits().batchMax() + " items.");
        }
        AckItems acks = AckItems.parse(b.ack(), mapper, config.limits().payloadMaxBytes());
        acks.withhold(bodies.outOfScope(acks.valid().stream().map(io.readpast.store.CompleteItem::id).toList()));
        Leases.AckAndClaim done = claims.claim(acks.valid(), workerId, queues, types, limit, lease,
                caller.name(), wait);
        List<JobRow> jobs = givenBackIfGone(http, done.jobs());
        tracing.manyJobs("claim", jobs, start);
        return new Responses.Claimed(jobs.stream().map(JobView::withLease).toList(),
                jobs.isEmpty() ? queueBook.unknown(queues, workerId) : List.of(), acks.answers(done.acks()));
    }

    /**
     * The client went away while its claim was waiting or running (a long poll given up, a
     * worker killed): nobody will ever see these leases, so the jobs go back to the queue at once
     * (released: no attempt spent) instead of when the leases run out. Returns what is left to
     * answer: nothing then.
     */
    private List<JobRow> givenBackIfGone(io.vertx.core.http.HttpServerRequest http, List<JobRow> jobs) {
        if (jobs.isEmpty() || http == null || !http.response().closed()) {
            return jobs;
        }
        leases.giveBack(jobs, caller.name());
        return List.of();
    }
}
