package io.readpast.core;

import io.quarkus.runtime.LaunchMode;
import io.readpast.config.StartupFailure;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** The HTTP port the broker will listen on, checked before start-up does anything that lasts. */
final class HttpPort {

    private HttpPort() {
    }

    /**
     * Fails start-up with one line when {@code quarkus.http.port} cannot be bound on
     * {@code quarkus.http.host}: another process holds it (most often a broker already running).
     * Port 0 (a random port) and the test launch mode are not checked.
     */
    static void checkFree() {
        if (LaunchMode.current() == LaunchMode.TEST) {
            return;
        }
        Config config = ConfigProvider.getConfig();
        int port = config.getOptionalValue("quarkus.http.port", Integer.class).orElse(8080);
        if (port <= 0) {
            return;
        }
        String host = config.getOptionalValue("quarkus.http.host", String.class).orElse("0.0.0.0");
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new StartupFailure("the HTTP port " + port + " on " + host + " cannot be bound (" + e.getMessage()
                    + "): another process holds it, most likely a broker already running. Stop it, or set "
                    + "QUARKUS_HTTP_PORT to a free port.");
        }
    }
}
