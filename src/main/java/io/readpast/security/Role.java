package io.readpast.security;

import java.util.Locale;

/** What an API key may do. {@code ADMIN} may do everything. */
public enum Role {
    /** Enqueue (single and batch) and read jobs. */
    PRODUCER,
    /** Claim, heartbeat, complete, fail, release, batch complete. */
    WORKER,
    /** Everything, including queues, cancel, requeue, purge, browsing and dead letters. */
    ADMIN;

    public static Role parse(String text) {
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown role '" + text + "' (producer, worker or admin)");
        }
    }
}
