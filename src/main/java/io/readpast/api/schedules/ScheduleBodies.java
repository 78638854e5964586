package io.readpast.api.schedules;

import io.readpast.api.http.ApiDocs;
import io.readpast.core.JobRules;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.databind.JsonNode;
import io.readpast.core.Schedules;
import io.readpast.store.ScheduleRow;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;
import java.util.List;

/** Request and response bodies of /schedules. */
public final class ScheduleBodies {

    private ScheduleBodies() {
    }

    @Schema(description = "The job a schedule enqueues at every fire time (as for POST /jobs).",
            requiredProperties = {"queue", "type"})
    public record JobTemplate(
            @Schema(description = "Queue name, " + ApiDocs.NAME_RULE, pattern = JobRules.QUEUE_PATTERN,
                    maxLength = 200, examples = "reports")
            String queue,
            @Schema(description = "Job type: 1-200 characters of letters, digits and . _ : / $ -.",
                    pattern = JobRules.TYPE_PATTERN, maxLength = 200, examples = "daily-report")
            String type,
            @Schema(ref = ApiDocs.ANY_VALUE, description = "Any JSON value, the same for every fire; at most "
                    + "readpast.limits.payload-max-bytes (1 MiB by default) of JSON text. Absent means null.",
                    examples = "{\"format\": \"pdf\"}")
            JsonNode payload,
            @Schema(description = "Higher is claimed first.", defaultValue = "0", examples = "0")
            Integer priority,
            @Schema(description = "Up to 50 tags, each 1-100 characters without control characters.", maxItems = 50,
                    examples = "[\"nightly\"]")
            List<String> tags,
            @Schema(description = "Attempts before a fired job goes DEAD; default the queue's maxAttempts, else "
                    + "readpast.defaults.max-attempts.", minimum = "1", maximum = "1000", examples = "3")
            Integer maxAttempts) {
    }

    @Schema(description = "A recurring schedule. PUT replaces it: absent fields take their defaults.",
            requiredProperties = {"cron", "job"})
    public record SchedulePut(
            @Schema(description = "Cron expression, 5 fields (minute hour day-of-month month day-of-week) or 6 (a "
                    + "leading second): values, ranges a-b, lists a,b, steps (a slash and n after a star or a range: every n-th value, e.g. 0-30/10), month names JAN-DEC, day "
                    + "names SUN-SAT (0 and 7 are Sunday), ? for any day; or @yearly, @monthly, @weekly, @daily, "
                    + "@hourly. When both day fields are restricted, a day matching either fires (as in Vixie cron). "
                    + "At most 200 characters.",
                    maxLength = 200, examples = "0 6 * * MON-FRI")
            String cron,
            @Schema(description = "IANA time zone the expression is read in (e.g. Europe/Paris); default UTC. Wall "
                    + "times skipped by a daylight-saving jump fire once when the clocks jump; wall times that happen "
                    + "twice fire once, unless the expression matches every hour (then the repeated hour fires too).",
                    defaultValue = "UTC", maxLength = 100, examples = "Europe/Paris")
            String timeZone,
            @Schema(description = "The job enqueued at every fire time; it is due at its slot time.")
            JobTemplate job,
            @Schema(description = "ALLOW: every slot enqueues a job. SKIP: a slot is skipped while the job of the "
                    + "previous fire is still PENDING, LEASED or PROCESSING.",
                    enumeration = {"ALLOW", "SKIP"}, defaultValue = "ALLOW", examples = "SKIP")
            String overlap,
            @Schema(description = "Slots missed while no instance could fire them (more than "
                    + "readpast.schedules.misfire-grace, 1 minute by default, late): ALL fires every one, LATEST "
                    + "fires only the most recent, NONE fires none. Slots on time always fire.",
                    enumeration = {"ALL", "LATEST", "NONE"}, defaultValue = "LATEST", examples = "LATEST")
            String catchUp,
            @Schema(description = "A paused schedule fires nothing; resuming it starts from the next slot.",
                    defaultValue = "false", examples = "false")
            Boolean paused) {
    }

    @JsonPropertyOrder({"name", "cron", "timeZone", "job", "overlap", "catchUp", "paused", "nextFireAt", "upcoming",
            "lastFireAt", "lastJobId", "createdBy", "modifiedBy", "createdAt", "updatedAt"})
    @Schema(description = "A recurring schedule and where it stands. Times are ISO-8601 UTC.")
    public record ScheduleView(
            @Schema(description = "Schedule name.", examples = "nightly-report")
            String name,
            @Schema(description = "Cron expression.", examples = "0 6 * * MON-FRI")
            String cron,
            @Schema(description = "Time zone of the expression.", examples = "Europe/Paris")
            String timeZone,
            @Schema(description = "The job each fire enqueues.")
            JobTemplateView job,
            @Schema(description = "ALLOW or SKIP.", enumeration = {"ALLOW", "SKIP"}, examples = "ALLOW")
            String overlap,
            @Schema(description = "ALL, LATEST or NONE.", enumeration = {"ALL", "LATEST", "NONE"}, examples = "LATEST")
            String catchUp,
            @Schema(description = "True while the schedule fires nothing.", examples = "false")
            boolean paused,
            @Schema(nullable = true, description = "The next slot (database clock decides when it is due); null while "
                    + "paused.")
            Instant nextFireAt,
            @Schema(description = "The next fire times, up to 5, from nextFireAt; empty while paused.")
            List<Instant> upcoming,
            @Schema(nullable = true, description = "The last slot handled (fired or skipped for overlap); null before "
                    + "the first.")
            Instant lastFireAt,
            @Schema(nullable = true, description = "Id of the job the last fire enqueued; null before the first.",
                    examples = "42")
            String lastJobId,
            @Schema(nullable = true, description = "Key that created the schedule; null with authentication off.",
                    examples = "ops")
            String createdBy,
            @Schema(nullable = true, description = "Key that changed it last; null with authentication off.",
                    examples = "ops")
            String modifiedBy,
            @Schema(description = "When it was created.")
            Instant createdAt,
            @Schema(description = "Last settings change.")
            Instant updatedAt) {

        static ScheduleView of(ScheduleRow s) {
            return new ScheduleView(s.name(), s.cron(), s.timeZone(),
                    new JobTemplateView(s.queue(), s.type(), s.payload(), s.priority(),
                            s.tags() == null ? "[]" : s.tags(), s.maxAttempts()),
                    s.overlap(), s.catchUp(), s.paused(), s.paused() ? null : s.nextFireAt(),
                    Schedules.upcoming(s, 5), s.lastFireAt(),
                    s.lastJobId() == null ? null : Long.toString(s.lastJobId()), s.createdBy(), s.modifiedBy(),
                    s.createdAt(), s.updatedAt());
        }
    }

    @JsonPropertyOrder({"queue", "type", "payload", "priority", "tags", "maxAttempts"})
    @Schema(description = "The job a schedule enqueues.")
    public record JobTemplateView(
            @Schema(description = "Queue name.", examples = "reports")
            String queue,
            @Schema(description = "Job type.", examples = "daily-report")
            String type,
            @Schema(ref = ApiDocs.ANY_VALUE, description = "The payload (any JSON value).",
                    examples = "{\"format\": \"pdf\"}")
            @JsonRawValue String payload,
            @Schema(description = "Priority.", examples = "0")
            int priority,
            @Schema(type = SchemaType.ARRAY, implementation = String.class, description = "Tags, [] when none.",
                    examples = "[\"nightly\"]")
            @JsonRawValue String tags,
            @Schema(nullable = true, description = "Attempts; null: the queue's or the broker's default.",
                    examples = "3")
            Integer maxAttempts) {
    }

    @Schema(description = "A page of schedules, by name.")
    public record SchedulePage(
            @Schema(description = "Up to 'limit' schedules.")
            List<ScheduleView> schedules,
            @Schema(nullable = true, description = "Pass as 'after' to get the following page; null when this page "
                    + "is the last.", examples = "nightly-report")
            String next) {
    }
}
