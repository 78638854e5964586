package io.readpast.store;

import java.time.Instant;
import java.util.List;

/**
 * Which jobs: the one filter of GET /jobs and the bulk actions; null fields do not filter.
 * {@code statuses} stored status codes; {@code error} a substring of the last error;
 * {@code created*}/{@code finished*} half-open ranges [after, before); {@code payload} the JSON
 * text of an object of scalar members the payload must all have, equal. {@code after} is the
 * keyset cursor (an id), {@code limit} the page size.
 */
public record JobFilter(String queue, String type, List<Integer> statuses, String tag, String fairnessKey,
                        String groupKey, Long batchId, String error, Instant createdAfter, Instant createdBefore,
                        Instant finishedAfter, Instant finishedBefore, String payload, Long after, int limit) {

    /** The same filter from another cursor, with another page size. */
    public JobFilter page(Long from, int size) {
        return new JobFilter(queue, type, statuses, tag, fairnessKey, groupKey, batchId, error, createdAfter,
                createdBefore, finishedAfter, finishedBefore, payload, from, size);
    }
}
