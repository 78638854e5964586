package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link TraceContextTest} against the packaged artifact (the test profile turns the SDK on; {@link TraceContextDefaultIT} runs it off). */
@QuarkusIntegrationTest
class TraceContextIT extends TraceContextTest {
}
