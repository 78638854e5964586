package io.readpast.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Leases;
import io.readpast.core.BrokerException;
import io.readpast.security.Allowed;
import io.readpast.security.Caller;
import io.readpast.security.Role;
import io.readpast.store.CompleteItem;
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

    public JobLeaseResource(Leases leases, ReadpastConfig config, ObjectMapper mapper, Caller caller,
                            JobBodies bodies) {
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
        JobRow row = leases.heartbeat(jobId, leaseId, lease, bodies.progressJson(b.progress()));
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
        return JobView.of(leases.complete(jobId, leaseId, result, caller.name()));
    }

    @Allowed(Role.WORKER)
    @Override
    public JobView fail(String id, Requests.Fail body) {
        long jobId = Validate.jobId(id);
        Requests.Fail b = Validate.body(body);
        bodies.requireInScope(jobId);
        String leaseId = Validate.leaseId(b.leaseId());
        String error = b.error() == null ? "failed" : b.error();
        if (error.length() > 10_000) {
            throw BrokerException.invalid("'error' must be at most 10000 characters.");
        }
        Validate.noControlCharacters("error", error);
        Long after = Validate.optionalRange("retryAfterSeconds", b.retryAfterSeconds(), 0L, JobBodies.MAX_DELAY_SECONDS);
        boolean retryable = b.retryable() == null || b.retryable();
        return JobView.of(leases.fail(jobId, leaseId, error, retryable, after == null ? null : Duration.ofSeconds(after),
                caller.name()));
    }

    @Allowed(Role.WORKER)
    @Override
    public JobView release(String id, Requests.Release body) {
        long jobId = Validate.jobId(id);
        String leaseId = Validate.leaseId(Validate.body(body).leaseId());
        bodies.requireInScope(jobId);
        return JobView.of(leases.release(jobId, leaseId, caller.name()));
    }
}
