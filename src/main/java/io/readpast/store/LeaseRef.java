package io.readpast.store;

/** A job and the lease its caller holds on it: every lease-bound write is guarded by both. */
public record LeaseRef(long id, String leaseId) {
}
