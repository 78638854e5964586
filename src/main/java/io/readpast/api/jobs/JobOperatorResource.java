package io.readpast.api.jobs;

import io.readpast.api.http.JobBodies;
import io.readpast.api.http.JobView;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.api.http.Validate;
import io.readpast.config.ReadpastConfig;
import io.readpast.api.http.JobQuery;
import io.readpast.core.BrokerException;
import io.readpast.core.BulkActions;
import io.readpast.core.Operations;
import io.readpast.core.Queues;
import io.readpast.security.Caller;
import io.readpast.store.JobFilter;
import io.readpast.store.JobRow;
import jakarta.ws.rs.core.Response;

import java.util.List;

/**
 * Operators browse, edit, run now, cancel, requeue and delete jobs (admin only: no {@code @Allowed}). The
 * contract and its documentation are in {@link JobOperatorApi}.
 */
public class JobOperatorResource implements JobOperatorApi {

    private final Operations operations;
    private final ReadpastConfig config;
    private final Caller caller;
    private final JobBodies bodies;
    private final BulkActions bulk;
    private final Queues queues;

    /** Most jobs one bulk call matches. */
    static final int BULK_MAX = 10_000;

    public JobOperatorResource(Operations operations, ReadpastConfig config, Caller caller, JobBodies bodies,
                               BulkActions bulk, Queues queues) {
        this.bulk = bulk;
        this.queues = queues;
        this.operations = operations;
        this.config = config;
        this.caller = caller;
        this.bodies = bodies;
    }

    @Override
    public Responses.Page list(String queue, String status, String type, String tag, String fairnessKey,
                               String groupKey, String batch, String error, String createdAfter, String createdBefore,
                               String finishedAfter, String finishedBefore, String payload, String limit, String after) {
        int pageSize = Validate.queryInt("limit", limit, 50, 1, config.limits().pageMax());
        JobFilter filter = JobQuery.filter(new JobQuery.Raw(queue, status, type, tag, fairnessKey, groupKey, batch,
                error, createdAfter, createdBefore, finishedAfter, finishedBefore, JobQuery.payloadParam(payload)),
                Validate.cursor(after), pageSize);
        List<JobRow> rows = operations.list(filter);
        return Responses.Page.of(rows, pageSize);
    }

    @Override
    public Responses.BulkResult bulk(Requests.Bulk body) {
        Validate.body(body);
        if (body.action() == null) {
            throw BrokerException.invalid("'action' is required: requeue, cancel or delete.");
        }
        BulkActions.Action action = switch (body.action()) {
            case "requeue" -> BulkActions.Action.REQUEUE;
            case "cancel" -> BulkActions.Action.CANCEL;
            case "delete" -> BulkActions.Action.DELETE;
            default -> throw BrokerException.invalid("'action' takes requeue, cancel or delete; got '"
                    + Validate.printable(body.action()) + "'.");
        };
        if (body.filter() == null || body.filter().isEmpty()) {
            throw BrokerException.invalid("'filter' needs at least one field (for every job of a queue, give "
                    + "'queue'; for every dead job, 'status': 'DEAD').");
        }
        int limit = Validate.optionalRange("limit", body.limit(), 1, BULK_MAX) == null ? 1000 : body.limit();
        String payload = null;
        if (body.payload() != null && !body.payload().isNull()) {
            if (action != BulkActions.Action.REQUEUE) {
                throw BrokerException.invalid("'payload' is for requeue only.");
            }
            payload = bodies.jsonText("payload", body.payload());
        }
        boolean keepAttempts = Boolean.TRUE.equals(body.keepAttempts());
        if (keepAttempts && action != BulkActions.Action.REQUEUE) {
            throw BrokerException.invalid("'keepAttempts' is for requeue only.");
        }
        if (body.queue() != null && action != BulkActions.Action.REQUEUE) {
            throw BrokerException.invalid("'queue' is for requeue only.");
        }
        String queue = targetQueue(body.queue());
        JobFilter filter = JobQuery.filter(body.filter().raw(), Validate.cursor(body.after()), limit);
        boolean dryRun = Boolean.TRUE.equals(body.dryRun());
        BulkActions.Result r = bulk.run(action, filter, dryRun, new Operations.Requeue(payload, keepAttempts, queue),
                caller.name());
        return new Responses.BulkResult(body.action(), dryRun, r.matched(), r.eligible(), r.changed(), r.skipped(),
                r.next() == null ? null : Long.toString(r.next()));
    }

    @Override
    public JobView cancel(String id) {
        return JobView.of(operations.cancel(Validate.jobId(id), caller.name()));
    }

    @Override
    public JobView requeue(String id, Requests.Requeue body) {
        long jobId = Validate.jobId(id);
        String payload = body == null || body.payload() == null || body.payload().isNull()
                ? null : bodies.jsonText("payload", body.payload());
        boolean keep = body != null && Boolean.TRUE.equals(body.keepAttempts());
        String queue = targetQueue(body == null ? null : body.queue());
        return JobView.of(operations.requeue(jobId, new Operations.Requeue(payload, keep, queue), caller.name()));
    }

    /** The queue a requeue moves jobs into: null keeps theirs; else a queue that exists (400 otherwise). */
    private String targetQueue(String name) {
        if (name == null) {
            return null;
        }
        String queue = Validate.queueName("queue", name);
        try {
            queues.get(queue);
        } catch (BrokerException e) {
            if (e.kind() == BrokerException.Kind.NOT_FOUND) {
                throw BrokerException.invalid("'queue': there is no queue named '" + queue + "' to requeue into "
                        + "(create it with PUT /queues/" + queue + ").");
            }
            throw e;
        }
        return queue;
    }

    @Override
    public JobView edit(String id, Requests.Edit body) {
        long jobId = Validate.jobId(id);
        if (body == null || (body.priority() == null && body.runAt() == null && body.payload() == null)) {
            throw BrokerException.invalid("Give at least one of 'priority', 'runAt' and 'payload'.");
        }
        // an explicit null payload is the JSON value null; an absent one keeps the job's
        String payload = body.payload() == null ? null : bodies.jsonText("payload", body.payload());
        return JobView.of(operations.edit(jobId, body.priority(), JobBodies.runAt(body.runAt()), false, payload,
                caller.name()));
    }

    @Override
    public JobView runNow(String id) {
        return JobView.of(operations.edit(Validate.jobId(id), null, null, true, null, caller.name()));
    }

    @Override
    public Response purge(String id) {
        operations.purge(Validate.jobId(id), caller.name());
        return Response.noContent().build();
    }
}
