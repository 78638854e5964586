package io.readpast.security;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;

/** {@link KeyAdminTest} (keys made and deleted at run time) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
@TestProfile(KeyAdminTest.Keys.class)
class KeyAdminIT extends KeyAdminTest {
}
