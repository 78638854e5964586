package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link LeaseExpiryTest} against the packaged artifact: a lease ends at leaseExpiresAt, swept or not. */
@QuarkusIntegrationTest
class LeaseExpiryIT extends LeaseExpiryTest {
}
