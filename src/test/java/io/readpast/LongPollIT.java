package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link LongPollTest} (claims and long polls) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class LongPollIT extends LongPollTest {
}
