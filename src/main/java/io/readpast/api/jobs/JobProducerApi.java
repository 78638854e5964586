package io.readpast.api.jobs;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.JobView;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.http.Problem;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Producers: enqueue jobs (one or a batch) and read them back.
 * The contract only: paths, media types and the OpenAPI text; {@link JobProducerResource} does the work.
 */
@Path("/jobs")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public interface JobProducerApi {

    @POST
    @Tag(name = "Producers")
    @Operation(operationId = "enqueueJob", summary = "Enqueue a job",
            description = "201 with the new job. With an idempotencyKey that a live (not finished) job holds, "
                    + "200 with that job and nothing is created; with a debounceKey whose window is open, 200 with "
                    + "the window's job, its payload and priority replaced. The job is due at once, after delaySeconds, or "
                    + "at runAt (ISO-8601); its queue is created on first use. A queue-scoped key may enqueue "
                    + "only into its queues (403)." + ApiDocs.ROLE_PRODUCER)
    @RequestBody(required = true, description = "The job.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.Enqueue.class),
                    examples = {
                            @ExampleObject(name = "minimal", summary = "Queue, type and payload",
                                    value = ApiDocs.ENQUEUE_BODY_MINIMAL),
                            @ExampleObject(name = "full", summary = "Priority, tags, attempts, idempotency key",
                                    value = ApiDocs.ENQUEUE_BODY),
                            @ExampleObject(name = "scheduled", summary = "Due at a given time",
                                    value = ApiDocs.ENQUEUE_BODY_SCHEDULED)}))
    @APIResponse(responseCode = "201", description = "Created: the new job, PENDING (with Prefer: return=minimal, "
            + "only its id and status).",
            headers = @Header(name = "Location", description = "/jobs/{id} of the new job",
                    schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = ApiDocs.JSON,
                    schema = @Schema(implementation = JobView.class),
                    examples = {
                            @ExampleObject(name = "created", value = ApiDocs.JOB_PENDING),
                            @ExampleObject(name = "minimal", summary = "With Prefer: return=minimal",
                                    value = "{\"id\": \"42\", \"status\": \"PENDING\"}")}))
    @APIResponse(responseCode = "200", description = "A live job already holds the idempotencyKey: that job, "
            + "unchanged; or the debounceKey's window is open: its job, with this enqueue's payload and priority. "
            + "Nothing was created (with Prefer: return=minimal, only its id and status).",
            headers = @Header(name = "Location", description = "/jobs/{id} of the existing job",
                    schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = ApiDocs.JSON,
                    schema = @Schema(implementation = JobView.class),
                    examples = @ExampleObject(name = "existing", value = ApiDocs.JOB_LEASED_HIDDEN)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", description = "The key does not have the producer role, or is scoped to "
            + "queues that do not include this one.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = {
                            @ExampleObject(name = "role", value = ApiDocs.PROBLEM_FORBIDDEN_ROLE),
                            @ExampleObject(name = "queue", value = ApiDocs.PROBLEM_FORBIDDEN_QUEUE)}))
    @APIResponse(responseCode = "409", description = "The idempotencyKey is held by a live job of another queue: "
            + "nothing was created (a key names one job, whatever the queue).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "otherQueue", value = ApiDocs.PROBLEM_KEY_OTHER_QUEUE)))
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Response enqueue(Requests.Enqueue body,
                     @Parameter(description = ApiDocs.PREFER_MINIMAL, example = "return=minimal")
                     @HeaderParam("Prefer") String prefer,
                     @Parameter(description = ApiDocs.TRACEPARENT,
                             example = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                     @HeaderParam("traceparent") String traceparent,
                     @Parameter(description = ApiDocs.TRACESTATE, example = "vendor=abc")
                     @HeaderParam("tracestate") String tracestate);

    @POST
    @Path("/batch")
    @Tag(name = "Producers")
    @Operation(operationId = "enqueueJobs", summary = "Enqueue up to 1000 jobs in one transaction",
            description = "Answers per item, in order: 201 created, 200 an idempotency key matched a live job, "
                    + "400 with the reason, 403 a queue outside the key's scope. A bad item fails only itself; "
                    + "the valid ones are enqueued together. The request as a whole gets 400 only when 'jobs' "
                    + "is missing, empty or longer than readpast.limits.batch-max (1000 by default), or the body "
                    + "is not JSON of this shape." + ApiDocs.ROLE_PRODUCER)
    @RequestBody(required = true, description = "The jobs, each as for POST /jobs.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Requests.EnqueueBatch.class),
                    examples = @ExampleObject(name = "batch", value = ApiDocs.ENQUEUE_BATCH_BODY)))
    @APIResponse(responseCode = "200", description = "One answer per item, in request order.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.BatchResult.class),
                    examples = @ExampleObject(name = "mixed", value = ApiDocs.ENQUEUE_BATCH_RESULT)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Response enqueueBatch(Requests.EnqueueBatch body,
                          @Parameter(description = ApiDocs.PREFER_MINIMAL, example = "return=minimal")
                          @HeaderParam("Prefer") String prefer,
                          @Parameter(description = ApiDocs.TRACEPARENT + " Items with their own traceparent keep it.",
                                  example = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                          @HeaderParam("traceparent") String traceparent,
                          @Parameter(description = ApiDocs.TRACESTATE, example = "vendor=abc")
                          @HeaderParam("tracestate") String tracestate);

    @GET
    @Consumes(MediaType.WILDCARD)
    @Path("/{id}")
    @Tag(name = "Producers")
    @Operation(operationId = "getJob", summary = "Read a job, wherever it lives (pending, running, archived or dead)",
            description = "The job in any status, until it is deleted (DELETE /jobs/{id} or retention). For a "
                    + "queue-scoped key, a job of another queue is 404, like a missing one." + ApiDocs.ROLE_PRODUCER)
    @APIResponse(responseCode = "200", description = "The job (without leaseId), with the errors of its failed "
            + "attempts.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = JobView.class),
                    examples = {
                            @ExampleObject(name = "succeeded", value = ApiDocs.JOB_DETAIL_SUCCEEDED),
                            @ExampleObject(name = "dead", value = ApiDocs.JOB_DETAIL_DEAD)}))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No job with this id, or (queue-scoped key) the job is in a "
            + "queue outside the key's scope.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_JOB_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    JobView get(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id);

    @GET
    @Consumes(MediaType.WILDCARD)
    @Path("/{id}/dependencies")
    @Tag(name = "Producers")
    @Operation(operationId = "getJobDependencies", summary = "A job's parents and children (dependsOn)",
            description = "The jobs and batches the job waits (or waited) for, each with its outcome once it settled, "
                    + "and the jobs that wait (or waited) for it; up to 1000 of each." + ApiDocs.ROLE_PRODUCER)
    @APIResponse(responseCode = "200", description = "Its edges.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Responses.Dependencies.class),
                    examples = @ExampleObject(name = "waiting", value = Responses.DEPENDENCIES_EXAMPLE)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No job with this id, or (queue-scoped key) the job is in a "
            + "queue outside the key's scope.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = ApiDocs.PROBLEM_JOB_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    Responses.Dependencies dependencies(@Parameter(description = ApiDocs.JOB_ID_PARAM, example = "42") @PathParam("id") String id);
}
