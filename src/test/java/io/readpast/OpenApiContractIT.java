package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link OpenApiContractTest} (/q/openapi and Swagger UI) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class OpenApiContractIT extends OpenApiContractTest {
}
