package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link ObservabilityTest} (metrics, health, request ids) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class ObservabilityIT extends ObservabilityTest {
}
