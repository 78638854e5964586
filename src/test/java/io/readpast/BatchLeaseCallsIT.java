package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link BatchLeaseCallsTest} (batch heartbeat, fail and release) against the packaged artifact. */
@QuarkusIntegrationTest
class BatchLeaseCallsIT extends BatchLeaseCallsTest {
}
