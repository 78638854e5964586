package io.readpast.testsupport;

import java.util.ArrayList;
import java.util.List;

/**
 * The enqueue bodies every path that takes a POST /jobs body must refuse or accept alike: the
 * HTTP API (HostileInputTest) and the SQL enqueue (SqlEnqueueTest, which runs each through
 * both and compares the answers). One list, so a rule added to one path is tried on the other.
 */
public final class EnqueueCases {

    private EnqueueCases() {
    }

    /** Members that break a valid {@code {"queue":"hq","type":"t", ...}} body, one at a time. */
    public static List<String> badFields() {
        return List.of("\"priority\":\"high\"", "\"priority\":1.5", "\"priority\":99999999999", "\"priority\":true",
                "\"maxAttempts\":0", "\"maxAttempts\":-3", "\"maxAttempts\":100000", "\"maxAttempts\":\"3\"",
                "\"delaySeconds\":-1", "\"delaySeconds\":1e30", "\"delaySeconds\":\"soon\"",
                "\"delaySeconds\":316224001",
                "\"runAt\":\"yesterday\"", "\"runAt\":12345", "\"runAt\":\"2030-13-45T99:00:00Z\"",
                "\"runAt\":\"+300000-01-01T00:00:00Z\"", "\"runAt\":\"0001-01-01T00:00:00Z\"",
                "\"runAt\":\"-4714-11-24T00:00:00Z\"", "\"runAt\":\"2030-02-30T00:00:00Z\"",
                "\"runAt\":\"2030-01-01T24:00:00Z\"", "\"runAt\":\"2030-01-01\"", "\"runAt\":\"2030-01-01T00:00:00\"",
                "\"runAt\":\"2030-01-01T00:00:00Z\",\"delaySeconds\":1", "\"tags\":\"x\"", "\"tags\":[1,2]",
                "\"tags\":[\"" + "t".repeat(101) + "\"]", "\"tags\":[\"a\\u0007b\"]", "\"tags\":[\"\"]",
                "\"tags\":[\"   \"]", "\"tags\":[\"" + "\uD83D\uDE00".repeat(51) + "\"]", "\"tags\":" + manyTags(51),
                "\"idempotencyKey\":\"" + "k".repeat(201) + "\"", "\"idempotencyKey\":\"a\\nb\"", "\"idempotencyKey\":7",
                "\"idempotencyKey\":\"k \"", "\"idempotencyKey\":\"\"",
                "\"payload\":{\"big\":\"" + "x".repeat(1_100_000) + "\"}", "\"status\":\"PENDING\"", "\"id\":5",
                "\"uniqueFor\":0", "\"uniqueFor\":31622401", "\"uniqueFor\":\"1h\"",
                "\"groupKey\":\"\"", "\"groupKey\":\"g\\u0000\"", "\"groupKey\":\"" + "g".repeat(201) + "\"",
                "\"expiresAt\":\"2001-01-01T00:00:00Z\"", "\"expiresAt\":\"later\"",
                "\"expiresAt\":\"2031-01-01T00:00:00Z\",\"runAt\":\"2032-01-01T00:00:00Z\"",
                "\"expiresAt\":\"10000-01-01T00:00:00Z\"",
                "\"fairnessKey\":\"\"", "\"fairnessKey\":\"k \"", "\"fairnessKey\":\"" + "f".repeat(201) + "\"",
                "\"fairnessKey\":7", "\"fairnessKey\":\"a\\u0001\"", "\"fairnessKey\":[\"t\"]");
    }

    /** Queue and type names that must be refused (the type's with '/' made a space). */
    public static List<String> badNames() {
        return List.of("", " ", "q q", "q'; DROP TABLE readpast_job; --", "q\" OR 1=1 --", "%", "q%25",
                "../etc", "q\\u0000", "q\\t", "ü-unicode", "-leading", "x".repeat(201), "x".repeat(10_000), "a;b", "a/b");
    }

    /** Webhook URLs no broker may store (with webhooks enabled and every host allowed). */
    public static List<String> badWebhookUrls() {
        return List.of("\"\"", "\"ftp://127.0.0.1/x\"", "\"http://\"", "\"/relative\"", "\"127.0.0.1/x\"",
                "\"http://user:pw@127.0.0.1/x\"", "\"http://127.0.0.1/x#frag\"", "\"javascript:alert(1)\"",
                "\"http://exa mple.com/\"", "\"http://127.0.0.1/a\\u0000b\"", "\"http://127.0.0.1/" + "a".repeat(2000) + "\"",
                "\"http://[::1/x\"", "5", "true", "[\"http://127.0.0.1/\"]", "{\"url\":\"http://127.0.0.1/\"}",
                "\"http://127.0.0.1:0/h\"", "\"http://127.0.0.1:99999/h\"", "\"http://127.0.0.1:65536/h\"",
                "\"http://my_host/h\"", "\"http://a.123/h\"", "\"http://h/<x>\"", "\"http://h/%zz\"", "\"http://h/[x]\"");
    }

    /** Every refused enqueue body: {@link #badFields}, the names as queue and as type, the webhook URLs. */
    public static List<String> badBodies() {
        String q = "\"queue\":\"hq\",\"type\":\"t\"";
        List<String> out = new ArrayList<>();
        for (String f : badFields()) {
            out.add("{" + q + "," + f + "}");
        }
        for (String name : badNames()) {
            out.add("{\"queue\":\"" + name + "\",\"type\":\"t\"}");
            out.add("{\"queue\":\"hq\",\"type\":\"" + name.replace("/", " ") + "\"}");
        }
        for (String url : badWebhookUrls()) {
            out.add("{" + q + ",\"webhookUrl\":" + url + "}");
        }
        out.add("{\"type\":\"t\"}");
        out.add("{\"queue\":\"hq\"}");
        return out;
    }

    /**
     * Enqueue members that must be accepted, each stored alike by every path (with
     * {@code "queue"} and {@code "type"} added): what a producer may send.
     */
    public static List<String> goodFields() {
        return List.of("", "\"payload\":{\"a\":1,\"nested\":[true,null,\"ü\\u00e9\\uD83D\\uDE00\"]}", "\"payload\":[1,2.50,-3e2]",
                "\"payload\":\"text\"", "\"payload\":null", "\"payload\":12345678901234567890",
                "\"priority\":-5", "\"priority\":2147483647", "\"maxAttempts\":7", "\"maxAttempts\":1000",
                "\"delaySeconds\":30", "\"delaySeconds\":0", "\"delaySeconds\":0,\"runAt\":\"2030-01-01T12:00:00+02:00\"",
                "\"runAt\":\"2030-01-01T12:00:00.123456Z\"", "\"runAt\":\"2030-06-30T23:59Z\"", "\"runAt\":\"1970-01-01T00:00:00Z\"",
                "\"tags\":[\"a\",\"b c\",\"ü\"]", "\"tags\":[]", "\"tags\":null", "\"groupKey\":\"g-1\"",
                "\"uniqueFor\":60", "\"expiresAt\":\"2031-01-01T00:00:00Z\"",
                "\"expiresAt\":\"2031-01-01T00:00:00Z\",\"runAt\":\"2030-01-01T00:00:00Z\"",
                "\"webhookUrl\":\"http://127.0.0.1:9/h?x=1\"", "\"webhookUrl\":\"HTTPS://Example.COM./a/ü\"",
                "\"webhookUrl\":\"http://[::1]:8080/h\"",
                "\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\",\"tracestate\":\"a=b,c=d\"",
                "\"traceparent\":\"garbage\",\"tracestate\":\"a=b\"",
                "\"traceparent\":\"01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-future\"",
                "\"traceparent\":\"00-00000000000000000000000000000000-b7ad6b7169203331-01\"",
                "\"fairnessKey\":\"tenant-7\"", "\"fairnessKey\":\"ü 日本 " + "k".repeat(190) + "\"");
    }

    private static String manyTags(int n) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("\"t").append(i).append('"');
        }
        return b.append(']').toString();
    }
}
