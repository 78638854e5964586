package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link DashboardApiTest} (the dashboard under /ui) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class DashboardApiIT extends DashboardApiTest {
}
