package io.readpast.api.batches;

import io.readpast.api.http.JobView;
import io.readpast.store.JobRow;
import io.readpast.webhook.JobDocuments;
import jakarta.enterprise.context.ApplicationScoped;

/** Webhook bodies carry the job as GET /jobs/{id} shows it ({@link JobView}), a batch as GET /batches/{id} does. */
@ApplicationScoped
public class ApiJobDocuments implements JobDocuments {

    private final io.readpast.core.Batches batches;

    public ApiJobDocuments(io.readpast.core.Batches batches) {
        this.batches = batches;
    }

    @Override
    public Object ofBatch(long id) {
        try {
            return BatchResource.BatchView.of(batches.get(id), null);
        } catch (io.readpast.core.BrokerException e) {
            return null;
        }
    }

    @Override
    public Object of(JobRow job) {
        return JobView.of(job);
    }
}
