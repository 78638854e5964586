package io.readpast.store;

/**
 * One lease of a batch heartbeat: the new lease length ({@code null} keeps the current one)
 * and progress as JSON text ({@code null} keeps the previous one).
 */
public record HeartbeatItem(long id, String leaseId, Integer leaseSeconds, String progress) {
}
