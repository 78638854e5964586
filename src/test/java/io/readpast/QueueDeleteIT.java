package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link QueueDeleteTest} against the packaged artifact. */
@QuarkusIntegrationTest
class QueueDeleteIT extends QueueDeleteTest {
}
