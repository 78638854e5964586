package io.readpast.api.jobs;

import io.readpast.api.http.JobBodies;
import io.readpast.api.http.JobView;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.api.http.Validate;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Batches;
import io.readpast.core.Enqueuer;
import io.readpast.store.JobLinks;
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
    private final Batches batches;

    public JobProducerResource(Enqueuer enqueuer, Operations operations, ReadpastConfig config, ObjectMapper mapper, Caller caller,
                               JobBodies bodies, JobTracing tracing, Batches batches) {
        this.tracing = tracing;
        this.batches = batches;
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
            Enqueuer.NewJobRequest job = bodies.toNewJob(b, span.context());
            JobLinks links = JobBodies.links(b);
            Enqueuer.Debounce debounce = JobBodies.debounce(b);
            e = links.hasParents() ? new Enqueuer.Enqueued(batches.enqueueWaiting(List.of(job), List.of(links)).get(0), true, null)
                    : debounce != null ? enqueuer.enqueueDebounced(job, debounce) : enqueuer.enqueue(job);
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
            List<Linked> valid = JobBodies.parseItems(items, "Each job", results, validIndex, node -> {
                Requests.Enqueue item = mapper.treeToValue(node, Requests.Enqueue.class);
                JobBodies.refuseDebounce(item);
                return new Linked(bodies.toNewJob(item, span.context()), JobBodies.links(item));
            });
            done = valid.isEmpty() ? List.of() : enqueueItems(valid);
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

    /** A batch item and what ties it to others. */
    private record Linked(Enqueuer.NewJobRequest job, JobLinks links) {
    }

    /**
     * The items in order: those with parents in one transaction (they lock their parents), the
     * rest in another, as enqueueMany does.
     */
    private List<Enqueuer.Enqueued> enqueueItems(List<Linked> items) {
        if (items.stream().noneMatch(i -> i.links().hasParents())) {
            return enqueuer.enqueueMerged(items.stream().map(Linked::job).toList());
        }
        List<Linked> waiting = items.stream().filter(i -> i.links().hasParents()).toList();
        List<Linked> plain = items.stream().filter(i -> !i.links().hasParents()).toList();
        java.util.Iterator<JobRow> w = batches.enqueueWaiting(waiting.stream().map(Linked::job).toList(),
                waiting.stream().map(Linked::links).toList()).iterator();
        java.util.Iterator<Enqueuer.Enqueued> p = plain.isEmpty() ? java.util.Collections.emptyIterator()
                : enqueuer.enqueueMerged(plain.stream().map(Linked::job).toList()).iterator();
        List<Enqueuer.Enqueued> out = new ArrayList<>(items.size());
        for (Linked i : items) {
            out.add(i.links().hasParents() ? new Enqueuer.Enqueued(w.next(), true, null) : p.next());
        }
        return out;
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

    @Allowed(Role.PRODUCER)
    @Override
    public Responses.Dependencies dependencies(String id) {
        JobView job = get(id);
        long jobId = Long.parseLong(job.id());
        List<Responses.Edge> parents = new ArrayList<>();
        List<Responses.Edge> children = new ArrayList<>();
        for (io.readpast.store.BatchStore.Edge e : batches.edges(jobId, 'j', jobId, 1000)) {
            String outcome = e.outcome() == null ? null : e.outcome() == 3 ? "SUCCEEDED" : e.outcome() == 5 ? "CANCELLED"
                    : "DEAD";
            if (e.childId() == jobId && !(e.parentKind() == 'j' && e.parentId() == jobId)) {
                parents.add(e.parentKind() == 'b' ? new Responses.Edge(null, Long.toString(e.parentId()), outcome)
                        : new Responses.Edge(Long.toString(e.parentId()), null, outcome));
            } else {
                children.add(new Responses.Edge(Long.toString(e.childId()), null, outcome));
            }
        }
        return new Responses.Dependencies(parents, children);
    }
}
