package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link MergingTest} against the packaged artifact. */
@QuarkusIntegrationTest
class MergingIT extends MergingTest {
}
