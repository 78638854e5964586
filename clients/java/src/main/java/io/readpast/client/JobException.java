package io.readpast.client;

import java.time.Duration;

/**
 * Throw it (or a subclass) from a handler to choose how the job fails: {@code retryable} false
 * makes it DEAD at once; {@code retryAfter} replaces the broker's exponential backoff. Any other
 * exception fails the job too (retryable).
 */
public class JobException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean retryable;
    private final Duration retryAfter;

    public JobException(String message) {
        this(message, true, null, null);
    }

    public JobException(String message, boolean retryable, Duration retryAfter, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
        this.retryAfter = retryAfter;
    }

    public boolean retryable() {
        return retryable;
    }

    /** The delay before the retry, or null for the broker's backoff. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
