package io.readpast.core;

import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How much the broker merged for its clients (readpast.merging.*): per kind, the statements run
 * and the requests they served. Requests per statement above 1 is merging at work; the metrics
 * readpast_merged_statements_total and readpast_merged_requests_total show them.
 */
@ApplicationScoped
public class MergeStats {

    /** What is merged. */
    public enum Kind {
        ENQUEUES, CLAIMS, ACKS
    }

    private final AtomicLongArray statements = new AtomicLongArray(Kind.values().length);
    private final AtomicLongArray requests = new AtomicLongArray(Kind.values().length);

    /** One statement ran for {@code n} requests. */
    void ran(Kind kind, int n) {
        statements.incrementAndGet(kind.ordinal());
        requests.addAndGet(kind.ordinal(), n);
    }

    public long statements(Kind kind) {
        return statements.get(kind.ordinal());
    }

    public long requests(Kind kind) {
        return requests.get(kind.ordinal());
    }
}
