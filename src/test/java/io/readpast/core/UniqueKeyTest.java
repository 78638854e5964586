package io.readpast.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The uniqueness key of a uniqueFor enqueue: the idempotency key, or a digest that ignores member order. */
class UniqueKeyTest {

    private static Enqueuer.NewJobRequest job(String queue, String type, String payload, String key) {
        return new Enqueuer.NewJobRequest(queue, type, payload, null, key, 0, null, null, 0, null, null, null, 60L, null);
    }

    @Test
    void anIdempotencyKeyIsTheUniquenessKey() {
        assertEquals("k:order-7", Enqueuer.uniqueKey(job("q", "t", "{\"a\":1}", "order-7")));
        assertEquals(Enqueuer.uniqueKey(job("q", "t", "{\"a\":1}", "order-7")),
                Enqueuer.uniqueKey(job("other", "other", "{\"b\":2}", "order-7")), "keys are global, as idempotency keys");
    }

    @Test
    void memberOrderAndSpacingDoNotMakeADifferentJob() {
        String a = Enqueuer.uniqueKey(job("q", "t", "{\"a\":1,\"b\":{\"x\":[1,2],\"y\":null}}", null));
        String b = Enqueuer.uniqueKey(job("q", "t", "{ \"b\" : {\"y\":null, \"x\":[1, 2]}, \"a\" : 1 }", null));
        assertEquals(a, b);
        assertTrue(a.matches("h:[0-9a-f]{64}"), a);
    }

    @Test
    void queueTypeAndPayloadEachMatter() {
        String base = Enqueuer.uniqueKey(job("q", "t", "{\"a\":1}", null));
        assertNotEquals(base, Enqueuer.uniqueKey(job("q2", "t", "{\"a\":1}", null)));
        assertNotEquals(base, Enqueuer.uniqueKey(job("q", "t2", "{\"a\":1}", null)));
        assertNotEquals(base, Enqueuer.uniqueKey(job("q", "t", "{\"a\":2}", null)));
        assertNotEquals(base, Enqueuer.uniqueKey(job("q", "t", "[1]", null)));
    }

    @Test
    void partsCannotBleedIntoEachOther() {
        // "ab" + "c" and "a" + "bc" are different jobs
        assertNotEquals(Enqueuer.uniqueKey(job("ab", "c", "1", null)), Enqueuer.uniqueKey(job("a", "bc", "1", null)));
    }

    @Test
    void decimalsAreKeptAsWrittenNotRoundedThroughDoubles() {
        // 0.1 + 0.2 style rounding must not merge different payloads: decimals are exact
        assertNotEquals(Enqueuer.uniqueKey(job("q", "t", "{\"n\":0.30000000000000004}", null)),
                Enqueuer.uniqueKey(job("q", "t", "{\"n\":0.3}", null)));
        assertNotEquals(Enqueuer.uniqueKey(job("q", "t", "{\"n\":12345678901234567890}", null)),
                Enqueuer.uniqueKey(job("q", "t", "{\"n\":12345678901234567891}", null)));
    }
}
