package io.readpast.store;

import java.util.List;

/**
 * What a claim asks for: up to {@code limit} jobs for {@code workerId} from {@code queues} (null
 * = every queue) of {@code types} (null = every type), leased for {@code leaseSeconds} (null:
 * the queue's default, else {@code defaultLeaseSeconds}); {@code by} is the key name recorded
 * as modified_by.
 */
public record ClaimParams(String workerId, List<String> queues, List<String> types, int limit, Integer leaseSeconds,
                          int defaultLeaseSeconds, String by) {

    /** A claim of every job type. */
    public ClaimParams(String workerId, List<String> queues, int limit, Integer leaseSeconds,
                       int defaultLeaseSeconds, String by) {
        this(workerId, queues, null, limit, leaseSeconds, defaultLeaseSeconds, by);
    }
}
