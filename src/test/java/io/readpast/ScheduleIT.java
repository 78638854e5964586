package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link ScheduleTest} (schedules) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class ScheduleIT extends ScheduleTest {
}
