package io.readpast.store.jdbc;

import io.readpast.store.StoreException;

import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Bounds the claim statements running at once from this broker. Claimers that start together
 * scan the same head of the claim index and step over each other's locked rows, so past about
 * the database's core count more of them add work, not throughput (bench/README.md).
 */
final class ClaimGate {

    private final Semaphore permits;

    ClaimGate(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("claim concurrency must be at least 1, got " + concurrency);
        }
        this.permits = new Semaphore(concurrency, true);
    }

    <T> T run(Supplier<T> claim) {
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(StoreException.Kind.UNAVAILABLE, "interrupted", e);
        }
        try {
            return claim.get();
        } finally {
            permits.release();
        }
    }
}
