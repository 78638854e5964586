package io.readpast.api.queues;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.Validate;
import io.readpast.core.Operations;
import io.readpast.core.JobStatus;
import io.readpast.store.JobStore;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Throughput: finished jobs per minute, from the archive and the dead letters. */
@Path("/stats")
@Produces(MediaType.APPLICATION_JSON)
public class StatsResource {

    static final int BUCKET_SECONDS = 60;
    static final int MINUTES_MAX = 1440;

    private final Operations operations;
    private final io.readpast.core.MergeStats merges;
    private final io.readpast.core.Wakeups wakeups;

    public StatsResource(Operations operations, io.readpast.core.MergeStats merges, io.readpast.core.Wakeups wakeups) {
        this.operations = operations;
        this.merges = merges;
        this.wakeups = wakeups;
    }

    @GET
    @Path("/merging")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Queues")
    @Operation(summary = "What this broker instance merged since it started",
            description = "Concurrent requests of one kind share a statement (docs/how-it-works.md, \"Merging\"; "
                    + "settings readpast.merging.*): for enqueues, claims and acks (batch completions and "
                    + "heartbeats), the statements this instance ran and the requests they served, since it "
                    + "started. Requests above statements is merging at work; equal counts mean every request "
                    + "ran alone (light load, or the kind's merging is off: then both stay 0). Also the "
                    + "long-polling claims waiting for work now. The same counts are the metrics "
                    + "readpast_merged_statements_total, readpast_merged_requests_total and "
                    + "readpast_claims_waiting. Per instance: behind a load balancer, each instance "
                    + "answers its own." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "This instance's counts since it started.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Merging.class),
                    examples = @ExampleObject(name = "busy", summary = "Under load",
                            value = "{\"enqueues\": {\"statements\": 1220, \"requests\": 2420}, "
                                    + "\"claims\": {\"statements\": 1003, \"requests\": 1480}, "
                                    + "\"acks\": {\"statements\": 1258, \"requests\": 1313}, "
                                    + "\"claimsWaiting\": 3}")))
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    // the counts are in memory, but the caller's key may be read from the database
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Merging merging() {
        return new Merging(count(io.readpast.core.MergeStats.Kind.ENQUEUES),
                count(io.readpast.core.MergeStats.Kind.CLAIMS), count(io.readpast.core.MergeStats.Kind.ACKS),
                wakeups.waiting());
    }

    private MergeCount count(io.readpast.core.MergeStats.Kind kind) {
        // requests first: a statement counted between the two reads never shows fewer requests than statements
        long requests = merges.requests(kind);
        return new MergeCount(Math.min(merges.statements(kind), requests), requests);
    }

    @Schema(description = "This broker instance's merging since it started, per kind.")
    public record Merging(
            @Schema(description = "POST /jobs and POST /jobs/batch.")
            MergeCount enqueues,
            @Schema(description = "POST /claim, with or without ack, long polls included.")
            MergeCount claims,
            @Schema(description = "Batch completions (POST /jobs/complete) and heartbeats, single and batch.")
            MergeCount acks,
            @Schema(description = "Long-polling claims of this instance waiting for work now.", examples = "3")
            int claimsWaiting) {
    }

    @Schema(description = "Statements run and the requests they served.")
    public record MergeCount(
            @Schema(description = "Statements run.", examples = "1220")
            long statements,
            @Schema(description = "Requests those statements answered: at least the statements.", examples = "2420")
            long requests) {
    }

    @GET
    @Path("/throughput")
    @Consumes(MediaType.WILDCARD)
    @Tag(name = "Queues")
    @Operation(summary = "Finished jobs per minute over the last hour (or 'minutes'), per queue and outcome",
            description = "Counts the jobs that became SUCCEEDED, DEAD or CANCELLED in each minute, by their "
                    + "finishedAt on the database clock, from the archive and the dead letters (jobs deleted or "
                    + "requeued since are not counted). The window ends at the start of the next minute: the last "
                    + "bucket is the current, partial minute. Each array holds one count per minute, oldest "
                    + "first; 'total' adds up every queue. Queues with nothing finished in the window are not "
                    + "listed." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "Counts per minute, oldest first.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = Throughput.class),
                    examples = @ExampleObject(name = "fiveMinutes", summary = "minutes=5",
                            value = ApiDocs.THROUGHPUT)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public Throughput throughput(
            @Parameter(description = "Only this queue; absent for every queue.", example = "emails")
            @QueryParam("queue") String queue,
            @Parameter(description = "Window length in minutes: 1 to 1440; default 60.",
                    schema = @Schema(type = SchemaType.INTEGER, minimum = "1", maximum = "1440", defaultValue = "60"),
                    example = "60")
            @QueryParam("minutes") String minutes) {
        int window = Validate.queryInt("minutes", minutes, 60, 1, MINUTES_MAX);
        JobStore.Throughput t = operations.throughput(queue == null ? null : Validate.queueName("queue", queue), window);
        Counter total = new Counter(window);
        Map<String, Counter> byQueue = new TreeMap<>();
        for (JobStore.Throughput.Count c : t.counts()) {
            if (c.bucket() < 0 || c.bucket() >= window) {
                continue;
            }
            total.add(c);
            byQueue.computeIfAbsent(c.queue(), q -> new Counter(window)).add(c);
        }
        List<QueueThroughput> queues = new ArrayList<>();
        byQueue.forEach((q, counter) -> queues.add(new QueueThroughput(q, counter.succeeded(), counter.dead(),
                counter.cancelled())));
        Instant from = t.windowStart();
        return new Throughput(from, from.plusSeconds((long) window * BUCKET_SECONDS), BUCKET_SECONDS,
                new ThroughputCounts(total.succeeded(), total.dead(), total.cancelled()), queues);
    }

    /** Per-minute counts of one queue (or all), by outcome. */
    private record Counter(long[] succeeded, long[] dead, long[] cancelled) {
        Counter(int minutes) {
            this(new long[minutes], new long[minutes], new long[minutes]);
        }

        void add(JobStore.Throughput.Count c) {
            JobStatus status = JobStatus.fromCode(c.status());
            long[] into = switch (status) {
                case SUCCEEDED -> succeeded;
                case DEAD -> dead;
                case CANCELLED -> cancelled;
                default -> null;
            };
            if (into != null) {
                into[c.bucket()] += c.n();
            }
        }
    }

    @Schema(description = "Finished jobs per minute, oldest minute first.")
    public record Throughput(
            @Schema(description = "Start of the first minute (a whole minute, database clock).")
            Instant from,
            @Schema(description = "End of the last minute: the start of the minute after the database's now.")
            Instant to,
            @Schema(description = "Length of each bucket in seconds: always 60.", examples = "60")
            int bucketSeconds,
            @Schema(description = "Every queue added up.")
            ThroughputCounts total,
            @Schema(description = "Each queue with at least one job finished in the window, by name.")
            List<QueueThroughput> queues) {
    }

    @Schema(description = "One count per minute for each outcome, oldest first.")
    public record ThroughputCounts(
            @Schema(description = "Jobs that became SUCCEEDED, per minute.", examples = "[0, 12, 9]")
            long[] succeeded,
            @Schema(description = "Jobs that became DEAD, per minute.", examples = "[0, 1, 0]")
            long[] dead,
            @Schema(description = "Jobs that became CANCELLED, per minute.", examples = "[0, 0, 0]")
            long[] cancelled) {
    }

    @Schema(description = "One queue's finished jobs per minute, oldest first.")
    public record QueueThroughput(
            @Schema(description = "Queue name.", examples = "emails")
            String queue,
            @Schema(description = "Jobs that became SUCCEEDED, per minute.", examples = "[0, 12, 9]")
            long[] succeeded,
            @Schema(description = "Jobs that became DEAD, per minute.", examples = "[0, 1, 0]")
            long[] dead,
            @Schema(description = "Jobs that became CANCELLED, per minute.", examples = "[0, 0, 0]")
            long[] cancelled) {
    }
}
