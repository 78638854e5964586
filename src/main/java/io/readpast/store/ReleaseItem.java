package io.readpast.store;

/** One job given back unworked: its lease, and the delay before it is due again (0: at once, in its place in line). */
public record ReleaseItem(long id, String leaseId, long delayMs) {
}
