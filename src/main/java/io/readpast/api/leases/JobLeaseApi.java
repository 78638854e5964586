package io.readpast.api.leases;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.JobView;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Workers: the calls on jobs they hold a lease on (heartbeat, complete, fail, release, batch ack).
 * The contract only: paths, media types and the OpenAPI text; {@link JobLeaseResource} does the work.
 */
@Path("/jobs")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public interface JobLeaseApi {

    @POST
    @Path("/complete")
    @Tag(name = "Workers")
    @Operation(operationId = "completeJobs", summary = "Complete up to 1000 leased jobs in one round trip",
            description = "Answers per item, in order: 200 completed, 404 no such job, 409 lease not held, 400 invalid. "
                    + "Items are checked and answered on their own. The request as a whole gets 400 only when "
                    + "'items' is missing, empty or longer than readpast.limits.batch-max (1000 by default), or "
                    + "the body is not JSON of this shape." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The jobs to complete, each with its leaseId and optional result.",
            content = @Content(mediaType = ApiDocs.JSON,
                    schema = @Schema(implementation = Requests.CompleteBatch.class),
                    examples = @ExampleObject(name = "batch", value = ApiDocs.COMPLETE_BATCH_BODY)))
    @APIResponse(responseCode = "200", description = "One answer per item, in request order.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.BatchResult.class),
                    examples = @ExampleObject(name = "mixed", value = ApiDocs.COMPLETE_BATCH_RESULT)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Responses.BatchResult completeBatch(Requests.CompleteBatch body);

    @POST
    @Path("/{id}/heartbeat")
    @Tag(name = "Workers")
    @Operation(operationId = "heartbeatJob", summary = "Extend a lease; the first heartbeat marks the job PROCESSING",
            description = "The lease runs leaseSeconds from now (default: its current length); progress, when given, "
                    + "is stored on the job. Check cancelRequested in the answer: when true, stop and fail or "
                    + "release the job." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The lease to extend.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Heartbeat.class),
                    examples = {
                            @ExampleObject(name = "withProgress", value = ApiDocs.HEARTBEAT_BODY),
                            @ExampleObject(name = "minimal", value = ApiDocs.RELEASE_BODY)}))
    @APIResponse(responseCode = "200", description = "The lease was extended.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.HeartbeatAck.class),
                    examples = @ExampleObject(name = "extended", value = ApiDocs.HEARTBEAT_ACK)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", ref = ApiDocs.LEASE_CONFLICT)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Responses.HeartbeatAck heartbeat(
            @Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
            Requests.Heartbeat body);

    @POST
    @Path("/{id}/complete")
    @Tag(name = "Workers")
    @Operation(operationId = "completeJob", summary = "Report success; the job becomes SUCCEEDED",
            description = "The caller must hold the lease (leaseId from the claim). The job moves to the archive "
                    + "with the optional result. A repeat with the same leaseId after it succeeded (the first answer "
                    + "was lost) is 200 with the job again; another leaseId is 409." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The lease and an optional result.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Complete.class),
                    examples = @ExampleObject(name = "withResult", value = ApiDocs.COMPLETE_BODY)))
    @APIResponse(responseCode = "200", description = "The job, SUCCEEDED.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "succeeded", value = ApiDocs.JOB_SUCCEEDED)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", ref = ApiDocs.LEASE_CONFLICT)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    JobView complete(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
                            Requests.Complete body);

    @POST
    @Path("/{id}/fail")
    @Tag(name = "Workers")
    @Operation(operationId = "failJob", summary = "Report failure; retried after a backoff, or DEAD when attempts are used up",
            description = "With attempts left and retryable (the default), the job is PENDING again, due after "
                    + "retryAfterSeconds or the exponential backoff. With attempts used up or retryable false it "
                    + "becomes DEAD (a dead letter). A job with cancelRequested becomes CANCELLED." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The lease and what went wrong.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Fail.class),
                    examples = {
                            @ExampleObject(name = "retryable", value = ApiDocs.FAIL_BODY),
                            @ExampleObject(name = "fatal", value = ApiDocs.FAIL_BODY_FATAL)}))
    @APIResponse(responseCode = "200", description = "The job: PENDING with a later runAt, DEAD, or CANCELLED.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = {
                            @ExampleObject(name = "retry", value = ApiDocs.JOB_RETRY),
                            @ExampleObject(name = "dead", value = ApiDocs.JOB_DEAD)}))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", ref = ApiDocs.LEASE_CONFLICT)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    JobView fail(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
                        Requests.Fail body);

    @POST
    @Path("/{id}/release")
    @Tag(name = "Workers")
    @Operation(operationId = "releaseJob", summary = "Give a leased job back unworked, without spending an attempt",
            description = "For a worker shutting down, or one that cannot take the job yet: the job is PENDING again "
                    + "and the attempt the claim counted is given back. It keeps its place in line, or with "
                    + "delaySeconds is due that long from now. A job with cancelRequested becomes CANCELLED."
                    + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The lease to give back.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Release.class),
                    examples = {
                            @ExampleObject(name = "release", value = ApiDocs.RELEASE_BODY),
                            @ExampleObject(name = "delayed", value = ApiDocs.RELEASE_DELAYED_BODY)}))
    @APIResponse(responseCode = "200", description = "The job: PENDING (or CANCELLED).",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "released", value = ApiDocs.JOB_PENDING)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", ref = ApiDocs.LEASE_CONFLICT)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    JobView release(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
                           Requests.Release body);

    @POST
    @Path("/heartbeat")
    @Tag(name = "Workers")
    @Operation(operationId = "heartbeatJobs", summary = "Extend up to 1000 leases in one round trip",
            description = "Each item as POST /jobs/{id}/heartbeat, all in one statement. Answers per item, in order: "
                    + "200 extended (with leaseExpiresAt and cancelRequested: when true, stop and fail or release "
                    + "that job), 404 no such job, 409 lease not held (lost), 400 invalid. The request as a whole "
                    + "gets 400 only when 'items' is missing, empty or longer than readpast.limits.batch-max (1000 "
                    + "by default), or the body is not JSON of this shape." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The leases to extend.",
            content = @Content(mediaType = ApiDocs.JSON,
                    schema = @Schema(implementation = Requests.HeartbeatBatch.class),
                    examples = @ExampleObject(name = "batch", value = ApiDocs.HEARTBEAT_BATCH_BODY)))
    @APIResponse(responseCode = "200", description = "One answer per item, in request order.",
            content = @Content(mediaType = ApiDocs.JSON,
                    schema = @Schema(implementation = Responses.LeaseBatchResult.class),
                    examples = @ExampleObject(name = "mixed", value = ApiDocs.HEARTBEAT_BATCH_RESULT)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Responses.LeaseBatchResult heartbeatBatch(Requests.HeartbeatBatch body);

    @POST
    @Path("/fail")
    @Tag(name = "Workers")
    @Operation(operationId = "failJobs", summary = "Report up to 1000 failures in one round trip",
            description = "Each item is answered as POST /jobs/{id}/fail answers it. The retries (attempts left) "
                    + "go into one statement, merged with the retries of other failure reports in flight; a job that "
                    + "dies or whose cancellation was requested is settled on its own. Answers per item, in order: "
                    + "200 with the job's state now (PENDING to be retried, DEAD or CANCELLED), 404 no such job, 409 "
                    + "lease not held, 400 invalid. The request as a whole gets 400 only when 'items' is missing, "
                    + "empty or longer than readpast.limits.batch-max, or the body is not JSON of this shape. A 503 "
                    + "may come after some items took effect: sent again, those are answered as the single call "
                    + "answers a repeat (200 for a job already DEAD or CANCELLED under this lease, else 409)."
                    + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The leases and what went wrong.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.FailBatch.class),
                    examples = @ExampleObject(name = "batch", value = ApiDocs.FAIL_BATCH_BODY)))
    @APIResponse(responseCode = "200", description = "One answer per item, in request order.",
            content = @Content(mediaType = ApiDocs.JSON,
                    schema = @Schema(implementation = Responses.LeaseBatchResult.class),
                    examples = @ExampleObject(name = "settled", value = ApiDocs.FAIL_BATCH_RESULT)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Responses.LeaseBatchResult failBatch(Requests.FailBatch body);

    @POST
    @Path("/release")
    @Tag(name = "Workers")
    @Operation(operationId = "releaseJobs", summary = "Give up to 1000 leased jobs back in one round trip",
            description = "Each item (with its own optional delaySeconds) is answered as POST /jobs/{id}/release "
                    + "answers it. The batch is one statement, merged with other releases in flight; a job whose "
                    + "cancellation was requested is cancelled on its own after it. Answers per item, in order: 200 "
                    + "with the job's state now (PENDING, or CANCELLED when a cancel was requested), 404 no such job, "
                    + "409 lease not held, 400 invalid. The request as a whole gets 400 only when 'items' is missing, "
                    + "empty or longer than readpast.limits.batch-max, or the body is not JSON of this shape. A 503 "
                    + "may come after some items took effect; sent again, those get 409." + ApiDocs.ROLE_WORKER)
    @RequestBody(required = true, description = "The leases to give back.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.ReleaseBatch.class),
                    examples = @ExampleObject(name = "batch", value = ApiDocs.RELEASE_BATCH_BODY)))
    @APIResponse(responseCode = "200", description = "One answer per item, in request order.",
            content = @Content(mediaType = ApiDocs.JSON,
                    schema = @Schema(implementation = Responses.LeaseBatchResult.class),
                    examples = @ExampleObject(name = "mixed", value = ApiDocs.RELEASE_BATCH_RESULT)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Responses.LeaseBatchResult releaseBatch(Requests.ReleaseBatch body);
}
