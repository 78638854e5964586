package io.readpast.store;

/**
 * A delivery attempt that failed: the delivery (its sequence and lease), the answer's status
 * (null when there was none), the error, when to try again, or whether it is DEAD now.
 */
public record WebhookFailure(long seq, String leaseId, Integer statusCode, String error, long delayMs, boolean dead) {
}
