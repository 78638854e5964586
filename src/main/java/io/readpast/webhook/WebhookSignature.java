package io.readpast.webhook;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;

/**
 * The {@code Readpast-Signature} header: {@code t=<unix seconds>,v1=<hex HMAC-SHA256>} of
 * {@code "<t>.<body>"} under the shared secret. A receiver recomputes it over the raw body it
 * got, compares in constant time, and may refuse old timestamps (replays).
 */
public final class WebhookSignature {

    public static final String HEADER = "Readpast-Signature";

    private WebhookSignature() {
    }

    public static String header(byte[] secret, long timestamp, byte[] body) {
        return "t=" + timestamp + ",v1=" + hmac(secret, timestamp, body);
    }

    /** Hex HMAC-SHA256 of {@code "<timestamp>.<body>"}. */
    public static String hmac(byte[] secret, long timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
