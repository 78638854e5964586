package io.readpast.config;

/** Thrown when the broker cannot start; the message is the whole story (one log line, exit status 1). */
public final class StartupFailure extends RuntimeException {
    public StartupFailure(String message) {
        super(message, null, false, false);
    }
}
