package io.readpast.security;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;

/** {@link SecurityTest} (keys, roles and queue scopes) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
@TestProfile(SecurityTest.Keys.class)
class SecurityIT extends SecurityTest {
}
