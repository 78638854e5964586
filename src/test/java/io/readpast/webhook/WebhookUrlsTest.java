package io.readpast.webhook;

import io.readpast.config.ReadpastConfig;
import io.readpast.core.BrokerException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Webhook URL rules (secret required, http(s), allowed hosts) and the signature format. */
class WebhookUrlsTest {

    static ReadpastConfig.Webhooks config(String secret, List<String> hosts) {
        return new ReadpastConfig.Webhooks() {
            public Optional<String> secret() {
                return Optional.ofNullable(secret);
            }

            public Optional<List<String>> allowedHosts() {
                return Optional.ofNullable(hosts);
            }

            public String interval() {
                return "1s";
            }

            public int batch() {
                return 20;
            }

            public int maxAttempts() {
                return 10;
            }

            public Duration backoffBase() {
                return Duration.ofSeconds(10);
            }

            public Duration backoffCap() {
                return Duration.ofHours(1);
            }

            public Duration timeout() {
                return Duration.ofSeconds(10);
            }

            public int leaseSeconds() {
                return 60;
            }

            public Duration deliveredRetention() {
                return Duration.ofDays(7);
            }

            public Duration deadRetention() {
                return Duration.ofDays(30);
            }
        };
    }

    @Test
    void withoutASecretWebhooksAreRefused() {
        BrokerException e = assertThrows(BrokerException.class,
                () -> WebhookUrls.check("webhookUrl", "https://a.example/h", config(null, null)));
        assertTrue(e.getMessage().contains("READPAST_WEBHOOK_SECRET"), e.getMessage());
        assertNull(WebhookUrls.check("webhookUrl", null, config(null, null)), "absent is fine");
    }

    @Test
    void anyHostWithoutAnAllowList() {
        assertEquals("https://a.example/h?x=1", WebhookUrls.check("w", "https://a.example/h?x=1", config("s", null)));
        assertEquals("HTTP://127.0.0.1:8080/h", WebhookUrls.check("w", "HTTP://127.0.0.1:8080/h", config("s", null)));
    }

    @Test
    void theAllowListNamesHostsAndSubdomains() {
        var c = config("s", List.of("hooks.example.com", "*.corp.example", " Other.Example "));
        assertTrue(WebhookUrls.hostAllowed("hooks.example.com", c));
        assertTrue(WebhookUrls.hostAllowed("HOOKS.example.com", c));
        assertTrue(WebhookUrls.hostAllowed("a.b.corp.example", c));
        assertTrue(WebhookUrls.hostAllowed("other.example", c));
        assertFalse(WebhookUrls.hostAllowed("corp.example", c), "*.x is for subdomains only");
        assertFalse(WebhookUrls.hostAllowed("evilcorp.example", c));
        assertFalse(WebhookUrls.hostAllowed("example.com", c));
        assertFalse(WebhookUrls.hostAllowed("169.254.169.254", c));
        BrokerException e = assertThrows(BrokerException.class,
                () -> WebhookUrls.check("webhookUrl", "http://169.254.169.254/latest", c));
        assertTrue(e.getMessage().contains("169.254.169.254"));
        assertTrue(WebhookUrls.hostAllowed("anything", config("s", List.of("*"))));
    }

    @Test
    void signatureIsHmacSha256OfTimestampDotBody() {
        byte[] body = "{\"id\":\"abc\"}".getBytes(StandardCharsets.UTF_8);
        byte[] secret = "whsec_test".getBytes(StandardCharsets.UTF_8);
        // computed independently (Python hmac) over "1700000000.{\"id\":\"abc\"}"
        assertEquals("t=1700000000,v1=38d2090fd7375d8bb1f1e9059a9956d24e8a05fd20a5adb008c5f18944e39fd1",
                WebhookSignature.header(secret, 1700000000L, body));
    }
}
