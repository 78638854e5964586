package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link RequestIntegrityTest} (exact payloads, framing, batch ack items) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class RequestIntegrityIT extends RequestIntegrityTest {
}
