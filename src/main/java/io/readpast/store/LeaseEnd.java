package io.readpast.store;

/**
 * How a lease ends when it does not succeed: the job, the lease, the error to record, whether
 * only an expired lease may be ended (lease expiry), and the key name recorded as modified_by.
 */
public record LeaseEnd(long id, String leaseId, String error, boolean expiredOnly, String by) {
}
