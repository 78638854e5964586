package io.readpast.api.schedules;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.FeatureDocs;
import io.readpast.api.http.JobBodies;
import io.readpast.api.http.Validate;
import io.readpast.http.Problem;
import com.fasterxml.jackson.databind.JsonNode;
import io.readpast.store.Json;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.BrokerException;
import io.readpast.core.Cron;
import io.readpast.core.CatchUp;
import io.readpast.core.JobRules;
import io.readpast.core.Overlap;
import io.readpast.core.ScheduleSpec;
import io.readpast.core.Schedules;
import io.readpast.security.Caller;
import io.readpast.store.ScheduleRow;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
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

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/** Recurring schedules: a cron expression in a time zone enqueues a job at every fire time. Admin only. */
@Path("/schedules")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class ScheduleResource {


    private final Schedules schedules;
    private final ReadpastConfig config;
    private final Caller caller;

    public ScheduleResource(Schedules schedules, ReadpastConfig config, Caller caller) {
        this.schedules = schedules;
        this.config = config;
        this.caller = caller;
    }

    @PUT
    @Path("/{name}")
    @Tag(name = "Schedules")
    @Operation(operationId = "putSchedule", summary = "Create or replace a recurring schedule",
            description = "At every fire time of the cron expression (read in the time zone), the broker enqueues the "
                    + "job template, due at that time. Each fire time enqueues at most one job, whatever the number of "
                    + "broker instances (a unique key on schedule and slot; the database clock decides when a slot is "
                    + "due). Replacing a schedule with the same expression and time zone keeps its next fire time; a "
                    + "new expression starts from its first slot after now. Jobs it enqueues are created by "
                    + "`schedule:<name>`." + ApiDocs.ROLE_ADMIN)
    @RequestBody(required = true, description = "The schedule.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = ScheduleBodies.SchedulePut.class),
                    examples = {
                            @ExampleObject(name = "weekdays", summary = "06:00 Paris time on weekdays",
                                    value = FeatureDocs.SCHEDULE_BODY),
                            @ExampleObject(name = "seconds", summary = "Every 10 seconds (6 fields), UTC",
                                    value = FeatureDocs.SCHEDULE_BODY_SECONDS)}))
    @APIResponse(responseCode = "200", description = "The schedule with its next fire times.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = ScheduleBodies.ScheduleView.class),
                    examples = @ExampleObject(name = "schedule", value = FeatureDocs.SCHEDULE_VIEW)))
    @APIResponse(responseCode = "400", description = "Invalid schedule: the body is not JSON of this shape, or the cron "
            + "expression, time zone, policy or job template is not usable ('detail' says why).",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = {
                            @ExampleObject(name = "cron", value = FeatureDocs.PROBLEM_BAD_CRON),
                            @ExampleObject(name = "malformed", value = ApiDocs.PROBLEM_MALFORMED)}))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "415", ref = ApiDocs.UNSUPPORTED_MEDIA_TYPE)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public ScheduleBodies.ScheduleView put(@Parameter(description = FeatureDocs.SCHEDULE_NAME_PARAM,
            example = "weekday-report") @PathParam("name") String name, ScheduleBodies.SchedulePut body) {
        String schedule = scheduleName(name);
        ScheduleBodies.SchedulePut b = Validate.body(body);
        if (b.cron() == null || b.cron().isEmpty()) {
            throw BrokerException.invalid("'cron' is required.");
        }
        String zone = b.timeZone() == null ? "UTC" : b.timeZone();
        Cron cron;
        try {
            cron = Cron.parse(b.cron(), zone);
        } catch (Cron.InvalidCron e) {
            throw BrokerException.invalid("'" + (e.getMessage().contains("time zone") ? "timeZone" : "cron")
                    + "' is not usable: " + e.getMessage() + ".");
        }
        Overlap overlap = choice("overlap", b.overlap(), Overlap.ALLOW, Overlap.values());
        CatchUp catchUp = choice("catchUp", b.catchUp(), CatchUp.LATEST, CatchUp.values());
        ScheduleBodies.JobTemplate job = b.job();
        if (job == null) {
            throw BrokerException.invalid("'job' is required: the job template to enqueue at every fire time.");
        }
        String queue = Validate.queueName("job.queue", job.queue());
        String type = Validate.typeName(job.type());
        String payload = job.payload() == null ? "null" : jsonText("job.payload", job.payload());
        String tags = Validate.tagsJson("job.tags", job.tags());
        Integer maxAttempts = Validate.optionalRange("job.maxAttempts", job.maxAttempts(), 1, 1000);
        int priority = job.priority() == null ? 0 : job.priority();
        ScheduleSpec settings = new ScheduleSpec(schedule, b.cron().strip(), zone, queue, type, payload, tags, priority,
                maxAttempts, overlap, catchUp, Boolean.TRUE.equals(b.paused()));
        return ScheduleBodies.ScheduleView.of(schedules.put(settings, cron, caller.name()));
    }

    @GET
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Schedules")
    @Operation(operationId = "listSchedules", summary = "List schedules with their next fire times",
            description = "By name; keyset pagination: pass the previous page's 'next' as 'after'. Each schedule shows "
                    + "its next fire time and up to 5 upcoming ones." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "A page of schedules.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = ScheduleBodies.SchedulePage.class),
                    examples = @ExampleObject(name = "page", value = FeatureDocs.SCHEDULE_PAGE)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public ScheduleBodies.SchedulePage list(
            @Parameter(description = "Page size: 1 to readpast.limits.page-max (500 by default); default 50.",
                    schema = @Schema(type = SchemaType.INTEGER, minimum = "1", defaultValue = "50"), example = "50")
            @QueryParam("limit") String limit,
            @Parameter(description = "The 'next' value of the previous page (a schedule name); absent for the first page.",
                    example = "nightly-report")
            @QueryParam("after") String after) {
        int pageSize = Validate.queryInt("limit", limit, 50, 1, config.limits().pageMax());
        String from = after == null || after.isEmpty() ? null : scheduleName(after, "after");
        List<ScheduleRow> rows = schedules.list(from, pageSize);
        String next = rows.size() < pageSize ? null : rows.get(rows.size() - 1).name();
        return new ScheduleBodies.SchedulePage(rows.stream().map(ScheduleBodies.ScheduleView::of).toList(), next);
    }

    @GET
    @Path("/{name}")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Schedules")
    @Operation(operationId = "getSchedule", summary = "Read a schedule", description = "The schedule, its next fire times and its last fire."
            + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The schedule.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = ScheduleBodies.ScheduleView.class),
                    examples = @ExampleObject(name = "schedule", value = FeatureDocs.SCHEDULE_VIEW)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No schedule with this name.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = FeatureDocs.PROBLEM_SCHEDULE_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public ScheduleBodies.ScheduleView get(@Parameter(description = FeatureDocs.SCHEDULE_NAME_PARAM,
            example = "weekday-report") @PathParam("name") String name) {
        return ScheduleBodies.ScheduleView.of(schedules.get(scheduleName(name)));
    }

    @DELETE
    @Path("/{name}")
    @Consumes(MediaType.WILDCARD)
    // no body on success: a client that accepts only problem documents (the error answers) is fine
    @Produces({MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    @Tag(name = "Schedules")
    @Operation(operationId = "deleteSchedule", summary = "Delete a schedule",
            description = "It fires no more. Jobs it already enqueued are not touched." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "204", description = "Deleted.")
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No schedule with this name.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = FeatureDocs.PROBLEM_SCHEDULE_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Response delete(@Parameter(description = FeatureDocs.SCHEDULE_NAME_PARAM, example = "weekday-report")
                           @PathParam("name") String name) {
        schedules.delete(scheduleName(name), caller.name());
        return Response.noContent().build();
    }

    @POST
    @Path("/{name}/pause")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Schedules")
    @Operation(operationId = "pauseSchedule", summary = "Pause a schedule: it fires nothing until resumed",
            description = "Keeps its settings. Jobs it already enqueued are not touched. No request body."
                    + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The schedule, paused.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = ScheduleBodies.ScheduleView.class),
                    examples = @ExampleObject(name = "paused", value = FeatureDocs.SCHEDULE_VIEW_PAUSED)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No schedule with this name.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = FeatureDocs.PROBLEM_SCHEDULE_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public ScheduleBodies.ScheduleView pause(@Parameter(description = FeatureDocs.SCHEDULE_NAME_PARAM,
            example = "weekday-report") @PathParam("name") String name) {
        return ScheduleBodies.ScheduleView.of(schedules.setPaused(scheduleName(name), true, caller.name()));
    }

    @POST
    @Path("/{name}/resume")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Schedules")
    @Operation(operationId = "resumeSchedule", summary = "Resume a paused schedule",
            description = "It fires next at its first slot after now: slots that passed while it was paused are not "
                    + "caught up. Resuming a schedule that is not paused changes nothing. No request body."
                    + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The schedule, with its next fire times.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = ScheduleBodies.ScheduleView.class),
                    examples = @ExampleObject(name = "resumed", value = FeatureDocs.SCHEDULE_VIEW)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No schedule with this name.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = FeatureDocs.PROBLEM_SCHEDULE_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public ScheduleBodies.ScheduleView resume(@Parameter(description = FeatureDocs.SCHEDULE_NAME_PARAM,
            example = "weekday-report") @PathParam("name") String name) {
        return ScheduleBodies.ScheduleView.of(schedules.setPaused(scheduleName(name), false, caller.name()));
    }

    private static String scheduleName(String value) {
        return scheduleName(value, "name");
    }

    private static String scheduleName(String value, String field) {
        if (!JobRules.isScheduleName(value)) {
            throw BrokerException.invalid("'" + field + "' must be a schedule name: 1-" + JobRules.SCHEDULE_NAME_MAX
                    + " characters of letters, digits and . _ : - (starting with a letter or digit).");
        }
        return value;
    }

    private static <E extends Enum<E>> E choice(String field, String value, E dflt, E[] allowed) {
        if (value == null) {
            return dflt;
        }
        for (E e : allowed) {
            if (e.name().equals(value)) {
                return e;
            }
        }
        throw BrokerException.invalid("'" + field + "' must be one of " + new java.util.TreeSet<>(
                java.util.Arrays.stream(allowed).map(Enum::name).toList()) + " (got '" + Validate.printable(value) + "').");
    }

    private String jsonText(String field, JsonNode node) {
        return JobBodies.jsonText(field, node, config.limits().payloadMaxBytes());
    }

}
