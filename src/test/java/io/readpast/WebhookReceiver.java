package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A webhook receiver for tests: an HTTP server on 127.0.0.1 (a port in 18300-18399) that records
 * every request and answers with whatever {@code answer} says (a status, or a delay first).
 */
public final class WebhookReceiver implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One request as received. */
    public record Received(String path, Map<String, List<String>> headers, byte[] body) {
        public String header(String name) {
            for (var e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue().get(0);
                }
            }
            return null;
        }

        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final List<Received> received = new ArrayList<>();
    private volatile Function<Received, Integer> answer = r -> 200;

    public WebhookReceiver() throws IOException {
        HttpServer s = null;
        for (int port = 18300; port < 18400 && s == null; port++) {
            try {
                s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
            } catch (BindException e) {
                // taken: try the next one
            }
        }
        if (s == null) {
            throw new IOException("no free port in 18300-18399");
        }
        server = s;
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Received r = new Received(exchange.getRequestURI().getPath(), Map.copyOf(exchange.getRequestHeaders()), body);
            synchronized (received) {
                received.add(r);
            }
            int status = answer.apply(r);
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        server.start();
    }

    /** The URL of a path on this receiver. */
    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public void answer(Function<Received, Integer> answer) {
        this.answer = answer;
    }

    public List<Received> received() {
        synchronized (received) {
            return List.copyOf(received);
        }
    }

    public List<Received> received(String path) {
        return received().stream().filter(r -> r.path().equals(path)).toList();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
