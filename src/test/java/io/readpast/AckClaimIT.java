package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link AckClaimTest} (batch ack and ack-and-claim) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class AckClaimIT extends AckClaimTest {
}
