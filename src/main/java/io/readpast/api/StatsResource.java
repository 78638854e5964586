package io.readpast.api;

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

    public StatsResource(Operations operations) {
        this.operations = operations;
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
