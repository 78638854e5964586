package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link UniqueExpiryTest} (uniqueness windows and expiry) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class UniqueExpiryIT extends UniqueExpiryTest {
}
