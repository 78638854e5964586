package io.readpast.webhook;

import io.readpast.config.ReadpastConfig;
import io.readpast.core.BrokerException;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/**
 * Checks a webhook URL given at enqueue or in a queue's settings: absolute http(s), a host, a
 * port the HTTP client can use (1-65535), an allowed host.
 */
public final class WebhookUrls {

    public static final int MAX_LENGTH = 2000;

    private WebhookUrls() {
    }

    /** The URL as given, or null when absent; a 400 naming {@code field} when it cannot be used. */
    public static String check(String field, String url, ReadpastConfig.Webhooks config) {
        if (url == null) {
            return null;
        }
        if (config.secret().isEmpty()) {
            throw BrokerException.invalid("'" + field + "': webhooks are not enabled on this broker "
                    + "(set READPAST_WEBHOOK_SECRET).");
        }
        if (url.isEmpty() || url.length() > MAX_LENGTH || url.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
            throw BrokerException.invalid("'" + field + "' must be an absolute http or https URL of at most "
                    + MAX_LENGTH + " characters, without spaces or control characters.");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw BrokerException.invalid("'" + field + "' is not a valid URL.");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw BrokerException.invalid("'" + field + "' must be an http or https URL.");
        }
        if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
            throw BrokerException.invalid("'" + field + "' must name a host, without user info or a #fragment.");
        }
        if (uri.getPort() != -1 && (uri.getPort() < 1 || uri.getPort() > 65535)) {
            throw BrokerException.invalid("'" + field + "' names port " + uri.getPort()
                    + ": a port must be between 1 and 65535.");
        }
        if (!hostAllowed(uri.getHost(), config)) {
            throw BrokerException.invalid("'" + field + "': host '" + uri.getHost() + "' is not in "
                    + "READPAST_WEBHOOK_ALLOWED_HOSTS.");
        }
        return url;
    }

    /** True when the allow-list is absent or names the host ({@code *.example.com} for subdomains, {@code *} for any). */
    public static boolean hostAllowed(String host, ReadpastConfig.Webhooks config) {
        List<String> allowed = config.allowedHosts().orElse(List.of());
        if (allowed.isEmpty()) {
            return true;
        }
        String h = host.toLowerCase(Locale.ROOT);
        for (String entry : allowed) {
            String e = entry.strip().toLowerCase(Locale.ROOT);
            if (e.equals("*") || e.equals(h) || (e.startsWith("*.") && h.endsWith(e.substring(1)))) {
                return true;
            }
        }
        return false;
    }
}
