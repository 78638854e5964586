package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link TraceContextTest} against the packaged artifact (tracing off: the producer's context is kept as sent). */
@QuarkusIntegrationTest
class TraceContextIT extends TraceContextTest {
}
