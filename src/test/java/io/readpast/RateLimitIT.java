package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link RateLimitTest} (rate limits) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class RateLimitIT extends RateLimitTest {
}
