package io.readpast.config;

import org.eclipse.microprofile.config.ConfigProvider;

/** Where this broker listens, as a newcomer would type it (from quarkus.http.host and port). */
public final class BaseUrl {

    private BaseUrl() {
    }

    public static String get() {
        var c = ConfigProvider.getConfig();
        String host = c.getOptionalValue("quarkus.http.host", String.class).orElse("0.0.0.0");
        int port = c.getOptionalValue("quarkus.http.port", Integer.class).orElse(8080);
        return "http://" + (host.equals("0.0.0.0") || host.equals("::") ? "localhost" : host) + ":" + port;
    }
}
