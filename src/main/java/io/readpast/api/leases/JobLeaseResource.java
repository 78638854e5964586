package io.readpast.api.leases;

import io.readpast.api.http.JobBodies;
import io.readpast.api.http.JobView;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.api.http.Validate;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Leases;
import io.readpast.core.BrokerException;
import io.readpast.security.Allowed;
import io.readpast.security.Caller;
import io.readpast.security.Role;
import io.readpast.store.CompleteItem;
import io.readpast.store.HeartbeatItem;
import io.readpast.store.JobRow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Workers heartbeat, complete, fail and release the jobs they hold a lease on. The contract and
 * its documentation are in {@link JobLeaseApi}.
 */
public class JobLeaseResource implements JobLeaseApi {

    private final Leases leases;
    private final ReadpastConfig config;
    private final ObjectMapper mapper;
    private final Caller caller;
    private final JobBodies bodies;
    private final io.readpast.ops.JobTracing tracing;

    public JobLeaseResource(Leases leases, ReadpastConfig config, ObjectMapper mapper, Caller caller,
                            JobBodies bodies, io.readpast.ops.JobTracing tracing) {
        this.tracing = tracing;
        this.leases = leases;
        this.config = config;
        this.mapper = mapper;
        this.caller = caller;
        this.bodies = bodies;
    }

    @Allowed(Role.WORKER)
    @Override
    public Responses.BatchResult completeBatch(Requests.CompleteBatch body) {
        List<JsonNode> items = Validate.body(body).items();
        Validate.batchSize("items", items, config.limits().batchMax());
        Responses.ItemResult[] results = new Responses.ItemResult[items.size()];
        List<Integer> validIndex = new ArrayList<>();
        List<CompleteItem> parsed = JobBodies.parseItems(items, "Each item", results, validIndex, node -> {
            Requests.CompleteItem item = mapper.treeToValue(node, Requests.CompleteItem.class);
            long id = Validate.jobId(item.id() == null ? "" : item.id());
            String lease = Validate.leaseId(item.leaseId());
            String result = item.result() == null || item.result().isNull() ? null : bodies.jsonText("result", item.result());
            return new CompleteItem(id, lease, result);
        });
        // a queue-scoped key: jobs outside its scope are answered as missing, and left alone
        java.util.Set<Long> hidden = bodies.outOfScope(parsed.stream().map(CompleteItem::id).toList());
        List<CompleteItem> valid = new ArrayList<>();
        List<Integer> validInScope = new ArrayList<>();
        for (int k = 0; k < parsed.size(); k++) {
            CompleteItem item = parsed.get(k);
            if (hidden.contains(item.id())) {
                results[validIndex.get(k)] = JobBodies.refused(validIndex.get(k), Long.toString(item.id()),
                        BrokerException.jobNotFound(item.id()));
            } else {
                valid.add(item);
                validInScope.add(validIndex.get(k));
            }
        }
        validIndex = validInScope;
        List<Leases.Completion> done = leases.completeMany(valid, caller.name());
        for (int k = 0; k < done.size(); k++) {
            Leases.Completion c = done.get(k);
            int i = validIndex.get(k);
            results[i] = c.error() == null
                    ? new Responses.ItemResult(i, Long.toString(c.id()), 200, null, null)
                    : JobBodies.refused(i, Long.toString(c.id()), c.error());
        }
        return Responses.BatchResult.of(List.of(results));
    }

    @Allowed(Role.WORKER)
    @Override
    public Responses.HeartbeatAck heartbeat(String id, Requests.Heartbeat body) {
        long jobId = Validate.jobId(id);
        Requests.Heartbeat b = Validate.body(body);
        bodies.requireInScope(jobId);
        String leaseId = Validate.leaseId(b.leaseId());
        Integer lease = Validate.optionalRange("leaseSeconds", b.leaseSeconds(),
                config.limits().leaseMinSeconds(), config.limits().leaseMaxSeconds());
        java.time.Instant start = java.time.Instant.now();
        if (!tracing.on()) {
            // merged with the heartbeats that arrive meanwhile (its span, when tracing is on, needs the row)
            io.readpast.core.Leases.Beat beat = leases.beat(jobId, leaseId, lease, bodies.progressJson(b.progress()));
            return new Responses.HeartbeatAck(Long.toString(beat.id()), beat.status().name(), beat.leaseExpiresAt(),
                    beat.cancelRequested());
        }
        JobRow row = leases.heartbeat(jobId, leaseId, lease, bodies.progressJson(b.progress()));
        tracing.jobCall("heartbeat", row, start);
        return new Responses.HeartbeatAck(Long.toString(row.id()),
                io.readpast.core.JobStatus.of(row).name(), row.leaseExpiresAt(), row.cancelRequested());
    }

    @Allowed(Role.WORKER)
    @Override
    public JobView complete(String id, Requests.Complete body) {
        long jobId = Validate.jobId(id);
        Requests.Complete b = Validate.body(body);
        bodies.requireInScope(jobId);
        String leaseId = Validate.leaseId(b.leaseId());
        String result = b.result() == null ? null : bodies.jsonText("result", b.result());
        java.time.Instant start = java.time.Instant.now();
        JobRow done = leases.complete(jobId, leaseId, result, caller.name());
        tracing.jobCall("complete", done, start);
        return JobView.of(done);
    }

    @Allowed(Role.WORKER)
    @Override
    public JobView fail(String id, Requests.Fail body) {
        long jobId = Validate.jobId(id);
        Requests.Fail b = Validate.body(body);
        bodies.requireInScope(jobId);
        FailItem f = failItem(jobId, b.leaseId(), b.error(), b.retryable(), b.retryAfterSeconds());
        java.time.Instant start = java.time.Instant.now();
        JobRow failed = leases.fail(f.id(), f.leaseId(), f.error(), f.retryable(), f.retryAfter(), caller.name());
        tracing.jobCall("fail", failed, start);
        return JobView.of(failed);
    }

    @Allowed(Role.WORKER)
    @Override
    public JobView release(String id, Requests.Release body) {
        long jobId = Validate.jobId(id);
        Requests.Release b = Validate.body(body);
        String leaseId = Validate.leaseId(b.leaseId());
        Duration delay = releaseDelay(b.delaySeconds());
        bodies.requireInScope(jobId);
        java.time.Instant start = java.time.Instant.now();
        JobRow released = leases.release(jobId, leaseId, delay, caller.name());
        tracing.jobCall("release", released, start);
        return JobView.of(released);
    }

    @Allowed(Role.WORKER)
    @Override
    public Responses.LeaseBatchResult heartbeatBatch(Requests.HeartbeatBatch body) {
        return leaseBatch(Validate.body(body).items(), node -> {
            Requests.HeartbeatItem item = mapper.treeToValue(node, Requests.HeartbeatItem.class);
            long id = Validate.jobId(item.id() == null ? "" : item.id());
            String lease = Validate.leaseId(item.leaseId());
            Integer seconds = Validate.optionalRange("leaseSeconds", item.leaseSeconds(),
                    config.limits().leaseMinSeconds(), config.limits().leaseMaxSeconds());
            return new HeartbeatItem(id, lease, seconds, bodies.progressJson(item.progress()));
        }, HeartbeatItem::id, valid -> leases.heartbeatMany(valid).stream()
                .map(h -> h.error() != null ? Outcome.refused(h.error())
                        : new Outcome(io.readpast.core.JobStatus.PROCESSING.name(), h.extended().leaseExpiresAt(),
                                h.extended().cancelRequested(), null))
                .toList());
    }

    /** A parsed batch failure. */
    private record FailItem(long id, String leaseId, String error, boolean retryable, Duration retryAfter) {
    }

    @Allowed(Role.WORKER)
    @Override
    public Responses.LeaseBatchResult failBatch(Requests.FailBatch body) {
        return leaseBatch(Validate.body(body).items(), node -> {
            Requests.FailItem item = mapper.treeToValue(node, Requests.FailItem.class);
            return failItem(Validate.jobId(item.id() == null ? "" : item.id()), item.leaseId(), item.error(),
                    item.retryable(), item.retryAfterSeconds());
        }, FailItem::id, valid -> {
            // the retries of the batch in one statement (merged with other failures under load)
            List<Leases.Failure> items = new ArrayList<>(valid.size());
            for (FailItem f : valid) {
                items.add(new Leases.Failure(f.id(), f.leaseId(), f.error(), f.retryable(), f.retryAfter()));
            }
            java.time.Instant start = java.time.Instant.now();
            return answers("fail", start, leases.failMany(items, caller.name()));
        });
    }

    /** A parsed batch release. */
    private record ReleaseItem(long id, String leaseId, Duration delay) {
    }

    @Allowed(Role.WORKER)
    @Override
    public Responses.LeaseBatchResult releaseBatch(Requests.ReleaseBatch body) {
        return leaseBatch(Validate.body(body).items(), node -> {
            Requests.ReleaseItem item = mapper.treeToValue(node, Requests.ReleaseItem.class);
            long id = Validate.jobId(item.id() == null ? "" : item.id());
            return new ReleaseItem(id, Validate.leaseId(item.leaseId()), releaseDelay(item.delaySeconds()));
        }, ReleaseItem::id, valid -> {
            // one statement for the batch (merged with other releases under load)
            List<io.readpast.store.ReleaseItem> items = new ArrayList<>(valid.size());
            for (ReleaseItem r : valid) {
                items.add(new io.readpast.store.ReleaseItem(r.id(), r.leaseId(), r.delay() == null ? 0 : r.delay().toMillis()));
            }
            java.time.Instant start = java.time.Instant.now();
            return answers("release", start, leases.releaseMany(items, caller.name()));
        });
    }

    /** A failure report checked as POST /jobs/{id}/fail checks it (the same for a batch item). */
    private static FailItem failItem(long id, String leaseId, String error, Boolean retryable, Long retryAfterSeconds) {
        String lease = Validate.leaseId(leaseId);
        String e = error == null ? "failed" : error;
        if (e.length() > 10_000) {
            throw BrokerException.invalid("'error' must be at most 10000 characters.");
        }
        Validate.noControlCharacters("error", e);
        Long after = Validate.optionalRange("retryAfterSeconds", retryAfterSeconds, 0L, JobBodies.MAX_DELAY_SECONDS);
        return new FailItem(id, lease, e, retryable == null || retryable, after == null ? null : Duration.ofSeconds(after));
    }

    private static Duration releaseDelay(Long delaySeconds) {
        Long s = Validate.optionalRange("delaySeconds", delaySeconds, 0L, JobBodies.MAX_DELAY_SECONDS);
        return s == null ? null : Duration.ofSeconds(s);
    }

    /** What a batch lease call did to one valid item: the job's state after it, or why not. */
    private record Outcome(String jobStatus, java.time.Instant leaseExpiresAt, Boolean cancelRequested,
                           BrokerException error) {
        static Outcome refused(BrokerException e) {
            return new Outcome(null, null, null, e);
        }
    }

    /** Each item's answer: the job's state after the call, or why not. */
    private List<Outcome> answers(String what, java.time.Instant start, List<Leases.Ended> ended) {
        List<Outcome> out = new ArrayList<>(ended.size());
        for (Leases.Ended e : ended) {
            if (e.error() != null) {
                out.add(Outcome.refused(e.error()));
            } else {
                tracing.jobCall(what, e.job(), start);
                out.add(new Outcome(io.readpast.core.JobStatus.of(e.job()).name(), null, null, null));
            }
        }
        return out;
    }

    /**
     * A batch of lease calls: the size checked, each item parsed on its own (a bad item fails
     * only itself), items outside a queue-scoped key's scope answered as missing and left alone,
     * the rest handed to {@code work}, which answers each in order.
     */
    private <T> Responses.LeaseBatchResult leaseBatch(List<JsonNode> items, JobBodies.ItemParser<T> parser,
                                                      java.util.function.ToLongFunction<T> idOf,
                                                      java.util.function.Function<List<T>, List<Outcome>> work) {
        Validate.batchSize("items", items, config.limits().batchMax());
        Responses.ItemResult[] parsedResults = new Responses.ItemResult[items.size()];
        List<Integer> parsedIndex = new ArrayList<>();
        List<T> parsed = JobBodies.parseItems(items, "Each item", parsedResults, parsedIndex, parser);
        Responses.LeaseItemResult[] results = new Responses.LeaseItemResult[items.size()];
        for (int i = 0; i < parsedResults.length; i++) {
            if (parsedResults[i] != null) {
                results[i] = Responses.LeaseItemResult.refused(parsedResults[i]);
            }
        }
        java.util.Set<Long> hidden = bodies.outOfScope(parsed.stream().map(idOf::applyAsLong).toList());
        List<T> valid = new ArrayList<>();
        List<Integer> validIndex = new ArrayList<>();
        for (int k = 0; k < parsed.size(); k++) {
            long id = idOf.applyAsLong(parsed.get(k));
            int i = parsedIndex.get(k);
            if (hidden.contains(id)) {
                results[i] = Responses.LeaseItemResult.refused(
                        JobBodies.refused(i, Long.toString(id), BrokerException.jobNotFound(id)));
            } else {
                valid.add(parsed.get(k));
                validIndex.add(i);
            }
        }
        List<Outcome> done = valid.isEmpty() ? List.of() : work.apply(valid);
        for (int k = 0; k < done.size(); k++) {
            Outcome o = done.get(k);
            int i = validIndex.get(k);
            String id = Long.toString(idOf.applyAsLong(valid.get(k)));
            results[i] = o.error() != null ? Responses.LeaseItemResult.refused(JobBodies.refused(i, id, o.error()))
                    : new Responses.LeaseItemResult(i, id, 200, o.jobStatus(), o.leaseExpiresAt(),
                            o.cancelRequested(), null);
        }
        return Responses.LeaseBatchResult.of(List.of(results));
    }
}
