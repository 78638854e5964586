package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link RequestRefusalsTest} against the packaged artifact. */
@QuarkusIntegrationTest
class RequestRefusalsIT extends RequestRefusalsTest {
}
