package io.readpast.api.jobs;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.JobView;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.http.Problem;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Operators: browse, edit, run now, cancel, requeue and delete jobs (role admin).
 * The contract only: paths, media types and the OpenAPI text; {@link JobOperatorResource} does the work.
 */
@Path("/jobs")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public interface JobOperatorApi {

    @GET
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Operators")
    @Operation(operationId = "listJobs", summary = "Browse and search jobs, newest first, across pending, running, archived and dead jobs",
            description = "Keyset pagination: pass the previous page's 'next' as 'after'. status takes one or more "
                    + "comma-separated statuses. Filters combine with AND; POST /jobs/bulk takes the same filter. "
                    + "A search reads the jobs newest first until it has a page, so a filter that matches few of "
                    + "many jobs reads many rows; queue, status and a recent createdAfter narrow it best."
                    + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "A page of jobs, newest first.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.Page.class),
                    examples = {
                            @ExampleObject(name = "page", value = ApiDocs.PAGE),
                            @ExampleObject(name = "last", summary = "Past the last page", value = ApiDocs.PAGE_LAST)}))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Responses.Page list(
            @Parameter(description = "Only jobs of this queue.", example = "emails")
            @QueryParam("queue") String queue,
            @Parameter(description = "Only jobs in these statuses: comma-separated PENDING, LEASED, PROCESSING, "
                    + "SUCCEEDED, DEAD, CANCELLED, WAITING.", example = "PENDING,LEASED")
            @QueryParam("status") String status,
            @Parameter(description = "Only jobs of this type.", example = "send")
            @QueryParam("type") String type,
            @Parameter(description = "Only jobs carrying this tag (1-100 characters).", example = "welcome")
            @QueryParam("tag") String tag,
            @Parameter(description = "Only jobs of this fairness key.", example = "acme")
            @QueryParam("fairnessKey") String fairnessKey,
            @Parameter(description = "Only jobs of this ordered group.", example = "customer-42")
            @QueryParam("groupKey") String groupKey,
            @Parameter(description = "Only jobs of this batch (its id).", example = "7")
            @QueryParam("batch") String batch,
            @Parameter(description = "Only jobs whose last error contains this text (1-200 characters; any case on "
                    + "PostgreSQL, the database collation's case rule on SQL Server).", example = "timeout")
            @QueryParam("error") String error,
            @Parameter(description = "Only jobs created at or after this ISO-8601 date-time with offset.",
                    example = "2026-11-30T00:00:00Z")
            @QueryParam("createdAfter") String createdAfter,
            @Parameter(description = "Only jobs created before this ISO-8601 date-time with offset.",
                    example = "2026-12-01T00:00:00Z")
            @QueryParam("createdBefore") String createdBefore,
            @Parameter(description = "Only jobs finished (SUCCEEDED, DEAD, CANCELLED) at or after this date-time.",
                    example = "2026-11-30T00:00:00Z")
            @QueryParam("finishedAfter") String finishedAfter,
            @Parameter(description = "Only jobs finished before this date-time.", example = "2026-12-01T00:00:00Z")
            @QueryParam("finishedBefore") String finishedBefore,
            @Parameter(description = "Only jobs whose payload is an object with each member of this JSON object, "
                    + "equal: 1-20 members, each a string, number, boolean or null (top-level members only).",
                    example = "{\"customer\":\"acme\"}")
            @QueryParam("payload") String payload,
            @Parameter(description = "Page size: 1 to readpast.limits.page-max (500 by default); default 50.",
                    schema = @Schema(type = SchemaType.INTEGER, minimum = "1", defaultValue = "50"), example = "50")
            @QueryParam("limit") String limit,
            @Parameter(description = "The 'next' value of the previous page; absent for the first page.",
                    example = "42")
            @QueryParam("after") String after);

    @POST
    @Path("/bulk")
    @Tag(name = "Operators")
    @Operation(operationId = "bulkJobs", summary = "Requeue, cancel or delete every job a filter matches",
            description = "The filter is GET /jobs's, and at least one of its fields is required. Jobs are taken newest "
                    + "first, at most 'limit' per call; each is changed by the same statement as the single call "
                    + "(POST /jobs/{id}/requeue, /cancel, DELETE /jobs/{id}), in its own transaction, so no call "
                    + "holds locks over many jobs and claims go on meanwhile. A matched job in a status the action "
                    + "does not apply to is left alone (counted in 'matched', not 'eligible'); one that a worker "
                    + "claimed or that changed meanwhile is counted as skipped, and so is one another transaction "
                    + "holds at that moment (a claim taking it: skipped, never waited for). When 'next' is not null, call again "
                    + "with it as 'after' to go on. dryRun counts and changes nothing. Each call that changes jobs "
                    + "is logged with the key's name, the filter and the counts." + ApiDocs.ROLE_ADMIN)
    @RequestBody(required = true, description = "The action, the filter and the call's limit.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Bulk.class),
                    examples = {
                            @ExampleObject(name = "requeue", value = ApiDocs.BULK_BODY),
                            @ExampleObject(name = "dryRun", summary = "Count the pending jobs of a customer",
                                    value = ApiDocs.BULK_DRY_RUN_BODY)}))
    @APIResponse(responseCode = "200", description = "The counts, and where to go on.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.BulkResult.class),
                    examples = @ExampleObject(name = "requeued", value = ApiDocs.BULK_RESULT)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Responses.BulkResult bulk(Requests.Bulk body);

    @POST
    @Path("/{id}/cancel")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Operators")
    @Operation(operationId = "cancelJob", summary = "Cancel a job",
            description = "A PENDING job becomes CANCELLED at once. A LEASED or PROCESSING job gets cancelRequested "
                    + "(its worker sees it on the next heartbeat) and becomes CANCELLED when the worker fails or "
                    + "releases it, or its lease expires. 409 for a SUCCEEDED or DEAD job. Cancelling a "
                    + "CANCELLED job changes nothing. No request body." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The job: CANCELLED, or still LEASED/PROCESSING with "
            + "cancelRequested true.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "cancelRequested", value = ApiDocs.JOB_CANCEL_REQUESTED)))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", description = "The job is SUCCEEDED or DEAD and can no longer be cancelled "
            + "(or it kept changing state; retry).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "finished", value = ApiDocs.PROBLEM_CANCEL_CONFLICT)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    JobView cancel(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id);

    @POST
    @Path("/{id}/requeue")
    @Tag(name = "Operators")
    @Operation(operationId = "requeueJob", summary = "Requeue a DEAD or CANCELLED job",
            description = "Back to PENDING, due now, with attempts reset (kept with 'keepAttempts': true); an optional "
                    + "'payload' replaces the old one and 'queue' moves it into another existing queue. "
                    + "It keeps its own time limit (timeoutSeconds) and retry backoff. A job of a batch stays in it: the batch counts it again, and is not finished until the job "
                    + "finishes again (a batch fires once). The body is optional." + ApiDocs.ROLE_ADMIN)
    @RequestBody(required = false, description = "Optional: a new payload.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Requeue.class),
                    examples = {
                            @ExampleObject(name = "newPayload", value = ApiDocs.REQUEUE_BODY),
                            @ExampleObject(name = "asItWas", summary = "Keep the payload", value = "{}")}))
    @APIResponse(responseCode = "200", description = "The job, PENDING again with attempt 0.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "requeued", value = ApiDocs.JOB_REQUEUED)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", description = "The job is not DEAD or CANCELLED, or a live job now holds its "
            + "idempotency key.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFinished", value = ApiDocs.PROBLEM_REQUEUE_CONFLICT)))
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    JobView requeue(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
                           Requests.Requeue body);

    @PATCH
    @Path("/{id}")
    @Tag(name = "Operators")
    @Operation(operationId = "editJob", summary = "Edit a job nobody holds: priority, runAt, payload",
            description = "For a PENDING job (due, scheduled or backing off before a retry) or a WAITING one. Each "
                    + "field given replaces the job's; absent fields keep theirs; at least one is required. One "
                    + "statement that skips a job a claim holds: a claim taking the job at this moment wins and the "
                    + "edit is refused (409), never waited on, and a lease is never taken back. A LEASED, PROCESSING "
                    + "or finished job is refused with 409 and unchanged." + ApiDocs.ROLE_ADMIN)
    @RequestBody(required = true, description = "The fields to change.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Edit.class),
                    examples = {
                            @ExampleObject(name = "all", value = ApiDocs.EDIT_BODY),
                            @ExampleObject(name = "priority", summary = "Only the priority", value = "{\"priority\": 9}")}))
    @APIResponse(responseCode = "200", description = "The job as edited.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "edited", value = ApiDocs.JOB_EDITED)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", description = "The job is LEASED, PROCESSING or finished, or a claim took it "
            + "at this moment.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "held", value = ApiDocs.PROBLEM_EDIT_CONFLICT)))
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    JobView edit(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id,
                 Requests.Edit body);

    @POST
    @Path("/{id}/run-now")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Operators")
    @Operation(operationId = "runJobNow", summary = "Make a scheduled or retrying job due now",
            description = "A PENDING job waiting for its runAt or for a retry's backoff becomes due at once (database "
                    + "clock); a due one stays due. Priority, payload and attempts are kept. A WAITING job is refused "
                    + "(409): it runs once its parents have settled. A LEASED, PROCESSING or finished job is refused "
                    + "with 409 and unchanged, as is one a claim takes at this moment. No request body."
                    + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The job, PENDING and due now.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "dueNow", value = ApiDocs.JOB_RUN_NOW)))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", description = "The job is WAITING, LEASED, PROCESSING or finished, or a claim "
            + "took it at this moment.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "held", value = ApiDocs.PROBLEM_EDIT_CONFLICT)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    JobView runNow(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id);

    @DELETE
    @Path("/{id}")
    @Consumes(MediaType.WILDCARD)
    // no body on success: a client that accepts only problem documents (the error answers) is fine
    @Produces({MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    @Tag(name = "Operators")
    @Operation(operationId = "deleteJob", summary = "Delete a finished job (SUCCEEDED, CANCELLED or DEAD) for good",
            description = "Removes the job from the archive or the dead letters. A PENDING, LEASED or PROCESSING job "
                    + "cannot be deleted (409): cancel it first." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "204", description = "Deleted.")
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", ref = ApiDocs.JOB_NOT_FOUND)
    @APIResponse(responseCode = "409", description = "The job is not finished (PENDING, LEASED or PROCESSING).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFinished", value = ApiDocs.PROBLEM_PURGE_CONFLICT)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Response purge(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id);
}
