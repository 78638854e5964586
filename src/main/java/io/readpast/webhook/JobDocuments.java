package io.readpast.webhook;

import io.readpast.store.JobRow;

/**
 * The job as the API shows it (GET /jobs/{id}), for the body of a delivery: the API layer
 * provides it, so that a webhook's job and the API's are one document.
 */
public interface JobDocuments {
    Object of(JobRow job);

    /** The batch as GET /batches/{id} shows it; null when it is gone. */
    Object ofBatch(long id);
}
