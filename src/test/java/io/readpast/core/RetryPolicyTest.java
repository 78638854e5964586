package io.readpast.core;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The backoff: doubling from the base, capped, each delay jittered into the upper half of its step. */
class RetryPolicyTest {

    private static final Duration BASE = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofMinutes(10);

    @Test
    void eachAttemptWaitsBetweenHalfItsStepAndTheStep() {
        long[] steps = {1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 600_000, 600_000};
        for (int attempt = 1; attempt <= steps.length; attempt++) {
            for (int i = 0; i < 200; i++) {
                long d = RetryPolicy.delayMs(attempt, BASE, CAP);
                long step = steps[attempt - 1];
                assertTrue(d >= step / 2 && d <= step, "attempt " + attempt + ": " + d + " ms outside [" + step / 2
                        + ", " + step + "]");
            }
        }
    }

    @Test
    void theJitterSpreadsRetriesOut() {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < 500; i++) {
            long d = RetryPolicy.delayMs(5, BASE, CAP);
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertTrue(max - min > 4_000, "500 retries of one attempt spread over more than half the 16 s step: "
                + min + ".." + max);
    }

    @Test
    void hugeAttemptNumbersStayAtTheCapWithoutOverflow() {
        for (int attempt : new int[] {41, 63, 64, 1_000, Integer.MAX_VALUE}) {
            long d = RetryPolicy.delayMs(attempt, BASE, CAP);
            assertTrue(d >= 300_000 && d <= 600_000, "attempt " + attempt + ": " + d);
        }
    }

    @Test
    void aZeroBaseOrCapMeansAtOnce() {
        assertEquals(0, RetryPolicy.delayMs(3, Duration.ZERO, CAP));
        assertEquals(0, RetryPolicy.delayMs(3, BASE, Duration.ZERO));
        assertEquals(0, RetryPolicy.delayMs(0, Duration.ZERO, Duration.ZERO));
    }

    @Test
    void aJobsOwnPolicyGivesItsDelaysOrItsCurve() {
        String list = "{\"delaysSeconds\": [10, 60.5, 300]}";
        assertEquals(10_000, RetryPolicy.delayMs(1, list));
        assertEquals(60_500, RetryPolicy.delayMs(2, list));
        assertEquals(300_000, RetryPolicy.delayMs(3, list));
        assertEquals(300_000, RetryPolicy.delayMs(9, list), "the last repeats");
        String curve = "{\"baseSeconds\": 2, \"factor\": 3, \"capSeconds\": 100, \"jitter\": false}";
        assertEquals(List.of(2_000L, 6_000L, 18_000L, 54_000L, 100_000L, 100_000L),
                java.util.stream.IntStream.rangeClosed(1, 6).mapToObj(a -> RetryPolicy.delayMs(a, curve)).toList());
        assertEquals(100_000, RetryPolicy.delayMs(Integer.MAX_VALUE, curve), "no overflow far out");
        String jittered = "{\"baseSeconds\": 8, \"factor\": 2, \"capSeconds\": 3600, \"jitter\": true}";
        for (int i = 0; i < 200; i++) {
            long d = RetryPolicy.delayMs(2, jittered);
            assertTrue(d >= 8_000 && d <= 16_000, d + " ms outside [8 s, 16 s]");
        }
    }
}
