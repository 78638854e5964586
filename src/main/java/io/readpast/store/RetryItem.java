package io.readpast.store;

/** One failure with attempts left, reported by the lease's holder: back to PENDING after {@code delayMs}, with its error. */
public record RetryItem(long id, String leaseId, String error, long delayMs) {
}
