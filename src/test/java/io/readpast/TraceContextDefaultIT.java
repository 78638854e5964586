package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;

/** {@link TraceContextDefaultTest} against the packaged artifact, tracing off as it ships. */
@QuarkusIntegrationTest
@TestProfile(TraceContextDefaultTest.SdkOff.class)
class TraceContextDefaultIT extends TraceContextDefaultTest {
}
