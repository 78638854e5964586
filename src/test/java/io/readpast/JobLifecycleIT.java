package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link JobLifecycleTest} (enqueue, claim, heartbeat, complete, fail, release) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class JobLifecycleIT extends JobLifecycleTest {
}
