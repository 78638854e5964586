package io.readpast.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Every request the suite makes, and the broker's answer, checked against the committed
 * {@code openapi/openapi.json} (OpenAPI 3.1: its schemas are JSON Schema 2020-12):
 * <ul>
 *   <li>the answer's status is one the operation documents; its body (by media type) validates
 *   against the documented schema; a documented header is present and valid; a 204 has no body;</li>
 *   <li>a request the spec refuses (its body, a path or query parameter, an unknown or missing
 *   parameter) is not accepted: the broker must answer it 4xx, or the spec promises less than the
 *   broker takes;</li>
 *   <li>a method the spec lacks on a documented path is answered 405; paths outside the API
 *   (/q/, /ui/) and unknown paths answered 404 are not the spec's business.</li>
 * </ul>
 * {@link #check} returns the findings of one exchange; {@link OpenApiValidationFilter} (REST
 * Assured) and {@link Http} call it for every exchange and fail the test on a finding, and
 * every finding is also kept ({@link #findings}) so that one raised on a thread the test does not
 * watch still fails the class ({@link OpenApiValidationExtension}).
 */
public final class OpenApiValidation {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> BODY_METHODS = Set.of("post", "put", "patch");

    /** The one instance, on the committed document (null when the document cannot be found). */
    private static volatile OpenApiValidation instance;

    private final JsonNode spec;
    private final List<Operation> operations = new ArrayList<>();
    private final Map<String, JsonSchema> schemas = new ConcurrentHashMap<>();
    private final JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    /**
     * Formats (date-time, uri, uuid, ...) are asserted on what the broker sends, not on what it
     * takes: OpenAPI 3.1 makes them annotations, and the broker may read more than it writes
     * (an ISO-8601 time without seconds, an internationalised URL); what it sends must be exact.
     */
    private final SchemaValidatorsConfig strict = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true)
            .build();
    private final SchemaValidatorsConfig lenient = SchemaValidatorsConfig.builder().formatAssertionsEnabled(false)
            .build();

    private static final ConcurrentLinkedQueue<String> FINDINGS = new ConcurrentLinkedQueue<>();
    private static final AtomicLong CHECKED = new AtomicLong();

    private record Operation(String method, String template, Pattern pattern, List<String> names, JsonNode node) {
    }

    OpenApiValidation(JsonNode spec) {
        this.spec = spec;
        spec.get("paths").fields().forEachRemaining(p -> {
            List<String> names = new ArrayList<>();
            StringBuilder re = new StringBuilder("^");
            var m = Pattern.compile("\\{([^}]+)}").matcher(p.getKey());
            int at = 0;
            while (m.find()) {
                re.append(Pattern.quote(p.getKey().substring(at, m.start()))).append("([^/]+)");
                names.add(m.group(1));
                at = m.end();
            }
            re.append(Pattern.quote(p.getKey().substring(at))).append("$");
            Pattern pattern = Pattern.compile(re.toString());
            p.getValue().fields().forEachRemaining(o -> operations.add(new Operation(o.getKey().toLowerCase(Locale.ROOT),
                    p.getKey(), pattern, names, o.getValue())));
        });
    }

    /** The validator on the committed openapi/openapi.json (found from the working directory up). */
    public static OpenApiValidation get() {
        OpenApiValidation v = instance;
        if (v == null) {
            synchronized (OpenApiValidation.class) {
                if (instance == null) {
                    instance = new OpenApiValidation(read(specFile()));
                }
                v = instance;
            }
        }
        return v;
    }

    static Path specFile() {
        Path dir = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            Path f = d.resolve("openapi").resolve("openapi.json");
            if (Files.isRegularFile(f)) {
                return f;
            }
        }
        throw new IllegalStateException("no openapi/openapi.json above " + dir);
    }

    private static JsonNode read(Path file) {
        try {
            return JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public JsonNode spec() {
        return spec;
    }

    /** Every finding so far, in this JVM. */
    public static List<String> findings() {
        return List.copyOf(FINDINGS);
    }

    /** How many exchanges were checked so far, in this JVM. */
    public static long checked() {
        return CHECKED.get();
    }

    /** One request and its answer, as a client saw them. */
    public record Exchange(String method, URI uri, String requestContentType, String requestBody, int status,
                           String responseContentType, Function<String, String> responseHeader, byte[] responseBody) {
    }

    /** The findings about one exchange (none: it keeps to the spec); each is also kept in {@link #findings}. */
    public List<String> check(Exchange x) {
        List<String> out = new ArrayList<>();
        String path = x.uri().getRawPath();
        if (path == null || path.startsWith("/q/") || path.startsWith("/ui/") || path.equals("/ui") || path.equals("/")) {
            return out;
        }
        CHECKED.incrementAndGet();
        String method = x.method().toLowerCase(Locale.ROOT);
        Operation op = null;
        Map<String, String> pathValues = new LinkedHashMap<>();
        boolean pathKnown = false;
        for (Operation o : operations) {
            var m = o.pattern().matcher(path);
            if (m.matches()) {
                pathKnown = true;
                if (o.method().equals(method)) {
                    op = o;
                    for (int i = 0; i < o.names().size(); i++) {
                        pathValues.put(o.names().get(i), URLDecoder.decode(m.group(i + 1), StandardCharsets.UTF_8));
                    }
                    break;
                }
            }
        }
        String what = x.method().toUpperCase(Locale.ROOT) + " " + path + " -> " + x.status();
        if (op == null) {
            if (pathKnown && x.status() != 405 && !method.equals("head") && !method.equals("options")) {
                out.add(what + ": the spec has no " + method.toUpperCase(Locale.ROOT) + " here, so 405 was due");
            } else if (!pathKnown && x.status() != 404 && x.status() != 405) {
                out.add(what + ": a path the spec does not have answered other than 404");
            }
            return keep(out);
        }
        String where = x.method().toUpperCase(Locale.ROOT) + " " + op.template() + " (" + path + ") -> " + x.status();
        boolean accepted = x.status() >= 200 && x.status() < 300;
        if (accepted) {
            for (String refusal : requestRefusals(op, x, pathValues)) {
                out.add(where + ": accepted a request the spec refuses: " + refusal);
            }
        }
        response(op, x, where, out);
        return keep(out);
    }

    /** -Dopenapi.validation=report: findings are recorded (and fail the class at its end), no request fails at once. */
    private static final boolean REPORT_ONLY = "report".equals(System.getProperty("openapi.validation"));

    private static List<String> keep(List<String> out) {
        FINDINGS.addAll(out);
        return REPORT_ONLY ? List.of() : out;
    }

    /** What in the request the spec does not allow (parameters and body). */
    private List<String> requestRefusals(Operation op, Exchange x, Map<String, String> pathValues) {
        List<String> out = new ArrayList<>();
        Map<String, List<String>> query = query(x.uri().getRawQuery());
        Set<String> documented = new java.util.HashSet<>();
        for (JsonNode p : iterable(op.node().path("parameters"))) {
            p = resolve(p);
            String name = p.path("name").asText();
            String in = p.path("in").asText();
            List<String> values = switch (in) {
                case "path" -> pathValues.containsKey(name) ? List.of(pathValues.get(name)) : null;
                case "query" -> {
                    documented.add(name);
                    yield query.get(name);
                }
                default -> null;
            };
            if (values == null || values.isEmpty()) {
                if (p.path("required").asBoolean(false) && !in.equals("header")) {
                    out.add("the required " + in + " parameter '" + name + "' is missing");
                }
                continue;
            }
            JsonNode schema = p.get("schema");
            if (schema != null) {
                JsonNode value;
                if ("array".equals(schemaType(schema))) {
                    // form style: exploded ?status=A&status=B, or (explode: false) ?status=A,B, is [A, B]
                    var array = JSON.createArrayNode();
                    JsonNode items = schema.path("items");
                    boolean exploded = p.path("explode").asBoolean(true);
                    for (String v : values) {
                        for (String one : exploded ? List.of(v) : List.of(v.split(",", -1))) {
                            array.add(typed(one, items));
                        }
                    }
                    value = array;
                } else {
                    value = typed(values.get(values.size() - 1), schema);
                }
                for (Finding e : validate(schema, value, false)) {
                    out.add(in + " parameter '" + name + "'=" + value + ": " + e.message());
                }
            }
        }
        for (String name : query.keySet()) {
            if (!documented.contains(name)) {
                out.add("the query parameter '" + name + "' is not in the spec");
            }
        }
        JsonNode body = op.node().path("requestBody");
        String text = x.requestBody();
        boolean hasBody = text != null && !text.isEmpty();
        if (body.isMissingNode()) {
            return out;
        }
        body = resolve(body);
        if (!hasBody) {
            if (body.path("required").asBoolean(false)) {
                out.add("the required body is missing");
            }
            return out;
        }
        String type = baseType(x.requestContentType());
        JsonNode media = body.path("content").path(type == null ? "" : type);
        if (media.isMissingNode()) {
            out.add("a body of type " + type + " (the spec takes " + names(body.path("content")) + ")");
            return out;
        }
        JsonNode instance;
        try {
            instance = JSON.readTree(text);
        } catch (IOException e) {
            out.add("the body is not JSON");
            return out;
        }
        if (media.has("schema")) {
            JsonNode answer = null;
            for (Finding e : validate(media.get("schema"), instance, false)) {
                // a per-item call (POST /jobs/batch, /jobs/complete, ...) answers a bad item in its
                // own result: an item the spec refuses is fine if its result is a 4xx
                var item = ITEM.matcher(e.at());
                if (item.find()) {
                    if (answer == null) {
                        answer = answer(x);
                    }
                    String results = item.group(1).equals("ack") ? "acks" : "results";
                    int status = answer.path(results).path(Integer.parseInt(item.group(2))).path("status").asInt(0);
                    if (status >= 400 && status < 500) {
                        continue;
                    }
                }
                out.add("body: " + e.message());
            }
        }
        return out;
    }

    /**
     * A validation message about an item of a request's array: /jobs/3/..., /items/0, /ack/2 (a
     * claim's acks, answered in "acks"; the others in "results").
     */
    private static final Pattern ITEM = Pattern.compile("^/(jobs|items|ack)/([0-9]+)(?:/|$)");

    private static JsonNode answer(Exchange x) {
        try {
            return x.responseBody() == null || x.responseBody().length == 0 ? JSON.createObjectNode()
                    : JSON.readTree(x.responseBody());
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private void response(Operation op, Exchange x, String where, List<String> out) {
        JsonNode responses = op.node().path("responses");
        JsonNode r = responses.get(Integer.toString(x.status()));
        if (r == null) {
            r = responses.get(x.status() / 100 + "XX");
        }
        if (r == null) {
            r = responses.get("default");
        }
        if (r == null) {
            out.add(where + ": status " + x.status() + " is not documented (documented: " + names(responses) + ")");
            return;
        }
        r = resolve(r);
        for (Iterator<Map.Entry<String, JsonNode>> it = r.path("headers").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> h = it.next();
            String value = x.responseHeader().apply(h.getKey());
            if (value == null) {
                out.add(where + ": the documented header " + h.getKey() + " is missing");
            } else if (h.getValue().has("schema")) {
                for (Finding e : validate(h.getValue().get("schema"), typed(value, h.getValue().get("schema")), true)) {
                    out.add(where + ": header " + h.getKey() + "=" + value + ": " + e.message());
                }
            }
        }
        byte[] body = x.responseBody() == null ? new byte[0] : x.responseBody();
        JsonNode content = r.get("content");
        if (content == null || content.isEmpty()) {
            if (body.length > 0) {
                out.add(where + ": a body where the spec documents none");
            }
            return;
        }
        if (body.length == 0) {
            out.add(where + ": no body where the spec documents " + names(content));
            return;
        }
        String type = baseType(x.responseContentType());
        JsonNode media = type == null ? null : content.get(type);
        if (media == null) {
            out.add(where + ": answered as " + x.responseContentType() + "; the spec documents " + names(content));
            return;
        }
        if (!media.has("schema")) {
            return;
        }
        JsonNode instance;
        try {
            instance = JSON.readTree(body);
        } catch (IOException e) {
            out.add(where + ": the body is not JSON");
            return;
        }
        for (Finding e : validate(media.get("schema"), instance, true)) {
            out.add(where + ": body: " + e.message());
        }
    }

    /** One message of a validation, with the JSON pointer of the value it is about. */
    public record Finding(String at, String message) {
    }

    /**
     * The messages of validating {@code instance} against {@code schema} (a schema of the spec,
     * refs and all), with formats asserted when {@code formats}.
     */
    public List<Finding> validate(JsonNode schema, JsonNode instance, boolean formats) {
        String key = formats + schema.toString();
        JsonSchema compiled = schemas.computeIfAbsent(key, k -> {
            ObjectNode root = JSON.createObjectNode();
            root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
            if (schema.isObject()) {
                root.setAll((ObjectNode) schema.deepCopy());
            } else {
                root.set("allOf", JSON.createArrayNode().add(schema));
            }
            root.set("components", spec.get("components"));
            return factory.getSchema(root, formats ? strict : lenient);
        });
        List<Finding> out = new ArrayList<>();
        for (ValidationMessage m : compiled.validate(instance)) {
            out.add(new Finding(pointer(m), m.getMessage()));
        }
        return out;
    }

    private static String pointer(ValidationMessage m) {
        StringBuilder b = new StringBuilder();
        var path = m.getInstanceLocation();
        for (int i = 0; i < path.getNameCount(); i++) {
            b.append('/').append(path.getElement(i));
        }
        return b.toString();
    }

    /** A parameter or header value as the JSON its schema describes (an integer, a boolean, or text). */
    private static JsonNode typed(String value, JsonNode schema) {
        String type = schemaType(schema);
        try {
            if ("integer".equals(type) && value.matches("-?[0-9]+")) {
                return JSON.getNodeFactory().numberNode(new java.math.BigInteger(value));
            }
            if ("number".equals(type) && value.matches("-?[0-9.eE+-]+")) {
                return JSON.getNodeFactory().numberNode(new java.math.BigDecimal(value));
            }
        } catch (NumberFormatException ignored) {
            // left as text: the schema refuses it
        }
        if ("boolean".equals(type) && (value.equals("true") || value.equals("false"))) {
            return JSON.getNodeFactory().booleanNode(Boolean.parseBoolean(value));
        }
        return JSON.getNodeFactory().textNode(value);
    }

    private static String schemaType(JsonNode schema) {
        JsonNode t = schema.get("type");
        if (t == null) {
            for (String k : List.of("anyOf", "oneOf")) {
                for (JsonNode s : iterable(schema.path(k))) {
                    String inner = schemaType(s);
                    if (inner != null && !inner.equals("null")) {
                        return inner;
                    }
                }
            }
            return null;
        }
        if (t.isArray()) {
            for (JsonNode x : t) {
                if (!x.asText().equals("null")) {
                    return x.asText();
                }
            }
            return null;
        }
        return t.asText();
    }

    /** A "$ref" to components (responses, parameters, request bodies) followed. */
    private JsonNode resolve(JsonNode node) {
        JsonNode n = node;
        for (int i = 0; i < 5 && n.has("$ref"); i++) {
            n = spec.at(n.get("$ref").asText().substring(1));
        }
        return n;
    }

    private static Iterable<JsonNode> iterable(JsonNode array) {
        return array == null || !array.isArray() ? List.of() : array::elements;
    }

    private static String names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return String.join(", ", names);
    }

    static String baseType(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return null;
        }
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
    }

    private static Map<String, List<String>> query(String raw) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String part : raw.split("&")) {
            if (part.isEmpty()) {
                continue;
            }
            int eq = part.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
            out.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        return out;
    }
}
