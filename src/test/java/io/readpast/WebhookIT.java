package io.readpast;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link WebhookTest} (completion webhooks) against the packaged artifact: the JVM jar, or with -Pnative the native binary. */
@QuarkusIntegrationTest
class WebhookIT extends WebhookTest {
}
