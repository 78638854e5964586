package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link GroupTest} (ordered groups) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class GroupIT extends GroupTest {
}
