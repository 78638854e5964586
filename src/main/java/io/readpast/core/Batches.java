package io.readpast.core;

import io.readpast.config.ReadpastConfig;
import io.readpast.store.BatchRow;
import io.readpast.store.BatchStore;
import io.readpast.store.JobLinks;
import io.readpast.store.JobRow;
import io.readpast.store.Json;
import io.readpast.store.LinkRefused;
import io.readpast.store.NewBatch;
import io.readpast.store.NewJob;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Batches and jobs that wait for others (docs/batches.md): creation, more jobs while open,
 * close, cancel, progress. What finishing a job does to its batch and its children happens in
 * the store, in the transaction that moves the job.
 */
@ApplicationScoped
public class Batches {

    /** Most parents one job may name (jobs and batches together). */
    public static final int MAX_PARENTS = 1000;

    private final BatchStore store;
    private final Enqueuer enqueuer;
    private final ReadpastConfig config;

    public Batches(BatchStore store, Enqueuer enqueuer, ReadpastConfig config) {
        this.store = store;
        this.enqueuer = enqueuer;
        this.config = config;
    }

    /** A batch's callback job: enqueued once when the batch fires. */
    public record Callback(String queue, String type, String payload, int priority, Integer maxAttempts) {
    }

    /** The batch and the jobs a change added. */
    public record Change(BatchRow batch, List<JobRow> jobs) {
    }

    /**
     * Creates a batch with its first jobs, in one transaction. {@code fireOn} is one of
     * {@link BatchRow}'s FIRE_ON codes; {@code callback} and {@code webhookUrl} may be null.
     */
    public Change create(List<Enqueuer.NewJobRequest> jobs, List<JobLinks> links, Callback callback, String webhookUrl,
                         int fireOn, boolean open, String by) {
        requireUnkeyed(jobs);
        TreeSet<String> queues = queuesOf(jobs);
        String spec = null;
        if (callback != null) {
            queues.add(callback.queue());
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("queue", callback.queue());
            c.put("type", callback.type());
            c.put("payload", parse(callback.payload()));
            c.put("priority", callback.priority());
            c.put("maxAttempts", callback.maxAttempts());
            c.put("defaultMaxAttempts", config.defaults().maxAttempts());
            spec = Json.write(c);
        }
        NewBatch batch = new NewBatch(List.copyOf(queues), fireOn, spec, webhookUrl, !open, by);
        BatchStore.Change ch = refusals(() -> store.batchCreate(batch, newJobs(jobs), links));
        created(ch.jobs());
        return new Change(ch.batch(), ch.jobs());
    }

    /** Adds jobs to an open batch (409 when it is closed). */
    public Change add(long id, List<Enqueuer.NewJobRequest> jobs, List<JobLinks> links) {
        requireUnkeyed(jobs);
        BatchStore.Change ch = refusals(() -> store.batchAdd(id, newJobs(jobs), links, List.copyOf(queuesOf(jobs))));
        created(ch.jobs());
        return new Change(ch.batch(), ch.jobs());
    }

    /** Closes an open batch: once its jobs have finished it fires (at once when they have). */
    public BatchRow close(long id) {
        return refusals(() -> store.batchClose(id));
    }

    /** Cancels a batch: its jobs nobody holds become CANCELLED, those at work get cancel requested. */
    public BatchRow cancel(long id, String by) {
        return store.batchCancel(id, by).orElseThrow(() -> notFound(id));
    }

    public BatchRow get(long id) {
        return store.batchGet(id).orElseThrow(() -> notFound(id));
    }

    public List<BatchRow> list(Long after, int limit) {
        return store.batchList(after, limit);
    }

    /** A job's parents and children (or a batch's children: {@code child} null, kind 'b'). */
    public List<BatchStore.Edge> edges(Long child, char kind, long parent, int limit) {
        return store.edges(child, kind, parent, limit);
    }

    /** Enqueues jobs that name parents, in one transaction; each waits for its parents. */
    public List<JobRow> enqueueWaiting(List<Enqueuer.NewJobRequest> jobs, List<JobLinks> links) {
        requireUnkeyed(jobs);
        List<JobRow> rows = refusals(() -> store.jobInsertLinked(newJobs(jobs), links));
        created(rows);
        return rows;
    }

    public static BrokerException notFound(long id) {
        return new BrokerException(BrokerException.Kind.NOT_FOUND, "There is no batch " + id + ".");
    }

    private List<NewJob> newJobs(List<Enqueuer.NewJobRequest> jobs) {
        return jobs.stream().map(enqueuer::toNewJob).toList();
    }

    private void created(List<JobRow> rows) {
        for (JobRow r : rows) {
            enqueuer.created(r);
        }
    }

    private static TreeSet<String> queuesOf(List<Enqueuer.NewJobRequest> jobs) {
        TreeSet<String> queues = new TreeSet<>();
        for (Enqueuer.NewJobRequest j : jobs) {
            queues.add(j.queue());
        }
        return queues;
    }

    /** A job of a batch, or one with parents, is always a new job: no idempotency key, no uniqueFor. */
    private static void requireUnkeyed(List<Enqueuer.NewJobRequest> jobs) {
        for (Enqueuer.NewJobRequest j : jobs) {
            if (j.idempotencyKey() != null || j.uniqueForSeconds() != null) {
                throw BrokerException.invalid("A job in a batch, or one with dependsOn, cannot carry 'idempotencyKey' or "
                        + "'uniqueFor': it is always a new job.");
            }
        }
    }

    private static com.fasterxml.jackson.databind.JsonNode parse(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private interface StoreCall<T> {
        T run();
    }

    /** The store's refusals, as the API answers them. */
    private static <T> T refusals(StoreCall<T> call) {
        try {
            return call.run();
        } catch (LinkRefused e) {
            throw new BrokerException(switch (e.kind()) {
                case UNKNOWN, CYCLE -> BrokerException.Kind.INVALID;
                case CONFLICT -> BrokerException.Kind.STATE_CONFLICT;
                case NOT_FOUND -> BrokerException.Kind.NOT_FOUND;
            }, e.getMessage());
        }
    }
}
