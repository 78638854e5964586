package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link OperationsTest} (dead letters, cancel, requeue, queues) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class OperationsIT extends OperationsTest {
}
