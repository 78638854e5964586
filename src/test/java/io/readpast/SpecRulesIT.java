package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link SpecRulesTest} (the rules the OpenAPI document states) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class SpecRulesIT extends SpecRulesTest {
}
