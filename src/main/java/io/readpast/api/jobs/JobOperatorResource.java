package io.readpast.api.jobs;

import io.readpast.api.http.JobBodies;
import io.readpast.api.http.JobView;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.api.http.Validate;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.BrokerException;
import io.readpast.core.Operations;
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

    public JobOperatorResource(Operations operations, ReadpastConfig config, Caller caller, JobBodies bodies) {
        this.operations = operations;
        this.config = config;
        this.caller = caller;
        this.bodies = bodies;
    }

    @Override
    public Responses.Page list(String queue, String status, String type, String tag, String limit, String after) {
        int pageSize = Validate.queryInt("limit", limit, 50, 1, config.limits().pageMax());
        Long cursor = Validate.cursor(after);
        JobFilter filter = new JobFilter(
                queue == null ? null : Validate.queueName("queue", queue),
                type == null ? null : Validate.typeName(type),
                Validate.statuses(status),
                tag == null ? null : Validate.text("tag", tag, 100, true),
                cursor, pageSize);
        List<JobRow> rows = operations.list(filter);
        return Responses.Page.of(rows, pageSize);
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
        return JobView.of(operations.requeue(jobId, payload, caller.name()));
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
