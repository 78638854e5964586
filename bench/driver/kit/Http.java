package driver.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * The HTTP side of the toolkit: the broker's base URL, a minimal keep-alive HTTP/1.1 client (one
 * socket per thread) for every measured request, and java.net.http for the odd setup call.
 */
public final class Http {
    public static final ObjectMapper JSON = new ObjectMapper();
    private static HttpClient http;
    private static String base;

    private Http() {
    }

    /** The broker at {@code url} (http://host:port). */
    public static void init(String url) {
        base = url;
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    /** PUT of a JSON body through java.net.http (setup, not measured); the answer's body when its status is 200. */
    public static String put(String path, String body) throws IOException, InterruptedException {
        HttpRequest put = HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> r = http.send(put, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("PUT " + path + " -> " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    public static JsonNode post(String path, String body, int expect) throws IOException {
        return JSON.readTree(postRaw(path, body, expect));
    }

    /** POST over this thread's keep-alive connection; the answer's body, when its status is {@code expect}. */
    public static byte[] postRaw(String path, String body, int expect) throws IOException {
        Conn c = CONN.get();
        Conn.Reply r;
        try {
            r = c.post(path, body.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            c.close();
            throw e;
        }
        if (r.status() != expect) {
            throw new IllegalStateException("POST " + path + " -> " + r.status() + ": "
                    + abbreviate(new String(r.body(), StandardCharsets.UTF_8)));
        }
        return r.body();
    }

    public static String abbreviate(String s) {
        return s.length() > 500 ? s.substring(0, 500) + "..." : s;
    }

    private static final ThreadLocal<Conn> CONN = ThreadLocal.withInitial(Conn::new);

    /**
     * A minimal HTTP/1.1 client: one keep-alive socket per thread, a request written in one go,
     * the answer read by Content-Length or chunked framing. The drain's workers do nothing but
     * claim and acknowledge, so the client should cost as little as it can on the machine the
     * broker and PostgreSQL share (java.net.http costs several times more per request).
     */
    static final class Conn {
        record Reply(int status, byte[] body) {
        }

        private java.net.Socket socket;
        private java.io.BufferedInputStream in;
        private java.io.OutputStream out;
        private final byte[] head;
        private final String host;
        private final int port;

        Conn() {
            URI u = URI.create(base);
            host = u.getHost();
            port = u.getPort();
            head = (" HTTP/1.1\r\nHost: " + host + ":" + port + "\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json\r\nContent-Length: ").getBytes(StandardCharsets.US_ASCII);
        }

        Reply post(String path, byte[] body) throws IOException {
            if (socket == null) {
                socket = new java.net.Socket(host, port);
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(60_000);
                in = new java.io.BufferedInputStream(socket.getInputStream(), 65536);
                out = socket.getOutputStream();
            }
            java.io.ByteArrayOutputStream req = new java.io.ByteArrayOutputStream(body.length + 200);
            req.writeBytes(("POST " + path).getBytes(StandardCharsets.US_ASCII));
            req.writeBytes(head);
            req.writeBytes((body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            req.writeBytes(body);
            req.writeTo(out);
            out.flush();
            String status = line();
            int code = Integer.parseInt(status.substring(9, 12));
            long length = -1;
            boolean chunked = false;
            boolean closing = false;
            for (String h = line(); !h.isEmpty(); h = line()) {
                int colon = h.indexOf(':');
                String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = h.substring(colon + 1).trim();
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "connection" -> closing = value.equalsIgnoreCase("close");
                    default -> { }
                }
            }
            byte[] payload;
            if (chunked) {
                java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
                for (int size = chunk(); size > 0; size = chunk()) {
                    b.writeBytes(in.readNBytes(size));
                    line();
                }
                while (!line().isEmpty()) {
                    // trailers
                }
                payload = b.toByteArray();
            } else {
                payload = in.readNBytes((int) Math.max(0, length));
            }
            if (closing) {
                close();
            }
            return new Reply(code, payload);
        }

        private int chunk() throws IOException {
            String l = line();
            int semi = l.indexOf(';');
            return Integer.parseInt((semi < 0 ? l : l.substring(0, semi)).trim(), 16);
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder(64);
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\n') {
                    int n = sb.length();
                    return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
                }
                sb.append((char) c);
            }
            throw new java.io.EOFException("connection closed by the broker");
        }

        void close() {
            try {
                if (socket != null) {
                    socket.close();
                }
            } catch (IOException ignored) {
                // gone anyway
            }
            socket = null;
        }
    }
}
