package io.readpast.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Enqueuer;
import io.readpast.core.Operations;
import io.readpast.core.TraceContext;
import io.readpast.ops.JobTracing;
import io.readpast.core.BrokerException;
import io.readpast.security.Allowed;
import io.readpast.security.Caller;
import io.readpast.security.Role;
import io.readpast.store.JobRow;
import jakarta.ws.rs.core.Response;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * Producers enqueue jobs and read them back. The contract and its documentation are in
 * {@link JobProducerApi}.
 */
public class JobProducerResource implements JobProducerApi {

    private final Enqueuer enqueuer;
    private final Operations operations;
    private final ReadpastConfig config;
    private final ObjectMapper mapper;
    private final Caller caller;
    private final JobBodies bodies;
    private final JobTracing tracing;

    public JobProducerResource(Enqueuer enqueuer, Operations operations, ReadpastConfig config, ObjectMapper mapper, Caller caller,
                               JobBodies bodies, JobTracing tracing) {
        this.tracing = tracing;
        this.enqueuer = enqueuer;
        this.operations = operations;
        this.config = config;
        this.mapper = mapper;
        this.caller = caller;
        this.bodies = bodies;
    }

    @Allowed(Role.PRODUCER)
    @Override
    public Response enqueue(Requests.Enqueue body, String prefer, String traceparent, String tracestate) {
        Requests.Enqueue b = Validate.body(body);
        Enqueuer.Enqueued e;
        try (JobTracing.Enqueue span = tracing.enqueue(TraceContext.parse(traceparent, tracestate), b.queue(), b.type())) {
            e = enqueuer.enqueue(bodies.toNewJob(b, span.context()));
            span.job(e.job());
        }
        boolean minimal = minimal(prefer);
        Object entity = minimal ? Responses.Minimal.of(e.job()) : JobView.of(e.job());
        Response.ResponseBuilder r = e.created()
                ? Response.created(URI.create("/jobs/" + e.job().id())).entity(entity)
                : Response.ok(entity).header("Location", "/jobs/" + e.job().id());
        return (minimal ? r.header("Preference-Applied", "return=minimal") : r).build();
    }

    /** Whether the Prefer header asks for return=minimal (RFC 7240), among other preferences. */
    static boolean minimal(String prefer) {
        if (prefer == null) {
            return false;
        }
        for (String p : prefer.split(",")) {
            if (p.strip().replace(" ", "").equalsIgnoreCase("return=minimal")) {
                return true;
            }
        }
        return false;
    }

    @Allowed(Role.PRODUCER)
    @Override
    public Response enqueueBatch(Requests.EnqueueBatch body, String prefer, String traceparent, String tracestate) {
        boolean minimal = minimal(prefer);
        List<JsonNode> items = Validate.body(body).jobs();
        Validate.batchSize("jobs", items, config.limits().batchMax());
        Responses.ItemResult[] results = new Responses.ItemResult[items.size()];
        List<Integer> validIndex = new ArrayList<>();
        List<Enqueuer.Enqueued> done;
        try (JobTracing.Enqueue span = tracing.enqueue(TraceContext.parse(traceparent, tracestate), null, null)) {
            List<Enqueuer.NewJobRequest> valid = JobBodies.parseItems(items, "Each job", results, validIndex,
                    node -> bodies.toNewJob(mapper.treeToValue(node, Requests.Enqueue.class), span.context()));
            done = valid.isEmpty() ? List.of() : enqueuer.enqueueMany(valid);
            span.jobs(done.size());
        }
        for (int k = 0; k < done.size(); k++) {
            Enqueuer.Enqueued e = done.get(k);
            int i = validIndex.get(k);
            results[i] = e.error() != null
                    ? JobBodies.refused(i, null, e.error())
                    : new Responses.ItemResult(i, Long.toString(e.job().id()), e.created() ? 201 : 200,
                            minimal ? null : JobView.of(e.job()), null);
        }
        Response.ResponseBuilder r = Response.ok(Responses.BatchResult.of(List.of(results)));
        return (minimal ? r.header("Preference-Applied", "return=minimal") : r).build();
    }

    @Allowed(Role.PRODUCER)
    @Override
    public JobView get(String id) {
        long jobId = Validate.jobId(id);
        JobRow row = operations.get(jobId);
        if (!caller.mayUseQueue(row.queue())) {
            // a queue-scoped key cannot tell other queues' jobs from missing ones
            throw BrokerException.jobNotFound(jobId);
        }
        return JobView.detail(row);
    }
}
