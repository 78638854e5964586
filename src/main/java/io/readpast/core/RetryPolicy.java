package io.readpast.core;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with "equal jitter": half the step fixed, half random. */
public final class RetryPolicy {

    private RetryPolicy() {
    }

    /**
     * Delay before the next try after {@code attempt} tries (1-based): base * 2^(attempt-1),
     * capped, then jittered into [d/2, d].
     */
    public static long delayMs(int attempt, Duration base, Duration cap) {
        long baseMs = Math.max(0, base.toMillis());
        long capMs = Math.max(0, cap.toMillis());
        int shift = Math.min(Math.max(attempt - 1, 0), 40);
        long step = baseMs > (capMs >> shift) ? capMs : Math.min(capMs, baseMs << shift);
        if (step <= 1) {
            return step;
        }
        long half = step / 2;
        return half + ThreadLocalRandom.current().nextLong(step - half + 1);
    }
}
