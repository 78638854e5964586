package io.readpast.api;

import io.readpast.store.JobRow;
import io.readpast.webhook.JobDocuments;
import jakarta.enterprise.context.ApplicationScoped;

/** Webhook bodies carry the job as GET /jobs/{id} shows it: {@link JobView}. */
@ApplicationScoped
public class ApiJobDocuments implements JobDocuments {

    @Override
    public Object of(JobRow job) {
        return JobView.of(job);
    }
}
