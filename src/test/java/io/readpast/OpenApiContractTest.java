package io.readpast;

import io.readpast.http.Problem;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The OpenAPI contract: the document the broker serves equals the committed {@code openapi/}
 * files (so that a change to the API shows up in review), every operation is documented, and
 * Swagger UI is served.
 */
@QuarkusTest
class OpenApiContractTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    /**
     * Operations any valid key may call and that never touch the database, so the contract
     * rightly lists no 403 and no 503: GET /me answers from the presented key alone.
     */
    private static final Set<String> ANY_ROLE_NO_DATABASE = Set.of("GET /me");

    // ---- (a) the served document is the committed one -----------------------------------------------

    @Test
    void servedJsonMatchesCommittedOpenapiJson() throws IOException {
        String served = given().queryParam("format", "json").when().get("/q/openapi")
                .then().statusCode(200).extract().asString();
        Committed committed = committed("openapi.json");
        compare(JSON.readTree(served), JSON.readTree(committed.text()), "openapi/openapi.json", committed.source());
    }

    /** jackson-dataformat-yaml is on the classpath (smallrye-open-api-core brings it), so YAML is compared too. */
    @Test
    void servedYamlMatchesCommittedOpenapiYaml() throws IOException {
        String served = given().when().get("/q/openapi").then().statusCode(200).extract().asString();
        Committed committed = committed("openapi.yaml");
        compare(YAML.readTree(served), YAML.readTree(committed.text()), "openapi/openapi.yaml", committed.source());
    }

    private static void compare(JsonNode served, JsonNode committed, String file, String source) {
        if (served.equals(committed)) {
            return;
        }
        List<String> differences = new ArrayList<>();
        diff("", committed, served, differences);
        fail("The OpenAPI document the broker serves differs from " + file + " (" + source + "). "
                + "Regenerate it with `./mvnw package -DskipTests` (application.properties sets "
                + "quarkus.smallrye-openapi.store-schema-directory=openapi) and commit openapi/. "
                + "First differences (JSON pointer: committed -> served):\n  " + String.join("\n  ", differences));
    }

    /** Up to 15 differing JSON pointers, for the failure message. */
    private static void diff(String at, JsonNode expected, JsonNode actual, List<String> out) {
        if (out.size() >= 15 || expected.equals(actual)) {
            return;
        }
        if (expected.isObject() && actual.isObject()) {
            Set<String> names = new TreeSet<>();
            names.addAll(names(expected));
            names.addAll(names(actual));
            for (String name : names) {
                String child = at + "/" + name.replace("~", "~0").replace("/", "~1");
                if (!expected.has(name)) {
                    out.add(child + ": (absent) -> " + brief(actual.get(name)));
                } else if (!actual.has(name)) {
                    out.add(child + ": " + brief(expected.get(name)) + " -> (absent)");
                } else {
                    diff(child, expected.get(name), actual.get(name), out);
                }
                if (out.size() >= 15) {
                    return;
                }
            }
        } else if (expected.isArray() && actual.isArray() && expected.size() == actual.size()) {
            for (int i = 0; i < expected.size(); i++) {
                diff(at + "/" + i, expected.get(i), actual.get(i), out);
            }
        } else {
            out.add((at.isEmpty() ? "/" : at) + ": " + brief(expected) + " -> " + brief(actual));
        }
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.properties().forEach(e -> names.add(e.getKey()));
        return names;
    }

    private static String brief(JsonNode node) {
        String s = node.toString();
        return s.length() > 120 ? s.substring(0, 120) + "..." : s;
    }

    private record Committed(String text, String source) {
    }

    /**
     * The committed version of openapi/{name}: {@code git show HEAD:./openapi/<name>}. Never the
     * file on disk: the build itself writes that one from the code, so comparing with it would
     * prove nothing. Without git, or with the file not committed, the test fails.
     */
    private static Committed committed(String name) {
        String relative = "openapi/" + name;
        Path dir = Path.of("").toAbsolutePath();
        if (git(dir, "--version") == null) {
            fail("git is needed to compare the served OpenAPI document with the committed " + relative
                    + " (the copy on disk is rewritten by every build, so it proves nothing); install git "
                    + "or run the tests in a git checkout");
        }
        if (git(dir, "ls-files", "--error-unmatch", relative) == null) {
            fail(relative + " is not tracked by git in " + dir + ": run `./mvnw package -DskipTests` and commit "
                    + "openapi/");
        }
        String text = git(dir, "show", "HEAD:./" + relative);
        if (text == null) {
            fail(relative + " is not in the HEAD commit: commit openapi/");
        }
        return new Committed(text, "as committed at HEAD");
    }

    /** The command's standard output, or null when git is missing or the command fails. */
    private static String git(Path dir, String... args) {
        List<String> command = new ArrayList<>();
        command.add("git");
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (InputStream in = p.getInputStream()) {
                in.transferTo(out);
            }
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? out.toString(StandardCharsets.UTF_8) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    // ---- (b) every operation is documented -----------------------------------------------------------

    @Test
    void everyOperationIsDocumented() throws IOException {
        JsonNode doc = JSON.readTree(given().queryParam("format", "json").when().get("/q/openapi")
                .then().statusCode(200).extract().asString());
        JsonNode paths = doc.path("paths");
        assertTrue(paths.size() > 0, "the document lists no paths");
        List<String> problems = new ArrayList<>();
        Set<String> seen = new TreeSet<>();
        for (Map.Entry<String, JsonNode> path : paths.properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                if (!METHODS.contains(op.getKey())) {
                    continue;
                }
                String name = op.getKey().toUpperCase() + " " + path.getKey();
                seen.add(name);
                check(doc, name, op.getValue(), problems);
            }
        }
        Map<String, String> operationIds = new java.util.HashMap<>();
        for (Map.Entry<String, JsonNode> path : paths.properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                if (METHODS.contains(op.getKey())) {
                    String name = op.getKey().toUpperCase() + " " + path.getKey();
                    String id = op.getValue().path("operationId").asText("");
                    if (!id.matches("[a-z][A-Za-z0-9]*")) {
                        problems.add(name + ": operationId '" + id + "' is not a lowerCamelCase name (client "
                                + "generators name their methods after it)");
                    } else if (operationIds.containsKey(id)) {
                        problems.add(name + ": operationId '" + id + "' is also used by " + operationIds.get(id));
                    } else {
                        operationIds.put(id, name);
                    }
                }
            }
        }
        assertTrue(seen.containsAll(ANY_ROLE_NO_DATABASE), "ANY_ROLE_NO_DATABASE names operations that no longer "
                + "exist: " + ANY_ROLE_NO_DATABASE + " vs " + seen);
        assertTrue(problems.isEmpty(), "Undocumented parts of the API:\n  " + String.join("\n  ", problems));
    }

    private static void check(JsonNode doc, String name, JsonNode op, List<String> problems) {
        if (op.path("summary").asText("").isBlank()) {
            problems.add(name + ": no summary");
        }
        if (op.path("description").asText("").isBlank()) {
            problems.add(name + ": no description");
        }
        if (!op.path("tags").isArray() || op.path("tags").isEmpty()) {
            problems.add(name + ": no tag");
        }
        for (JsonNode p : op.path("parameters")) {
            if (p.path("description").asText("").isBlank()) {
                problems.add(name + ": parameter '" + p.path("name").asText() + "' has no description");
            }
        }
        boolean hasBody = op.has("requestBody");
        if (hasBody) {
            JsonNode json = op.path("requestBody").path("content").path("application/json");
            if (!json.has("schema")) {
                problems.add(name + ": request body without an application/json schema");
            }
            if (!json.has("examples") && !json.has("example")) {
                problems.add(name + ": request body without an example");
            }
        }

        JsonNode responses = op.path("responses");
        Set<String> codes = new TreeSet<>(names(responses));
        boolean success = false;
        for (String code : codes) {
            JsonNode response = resolve(doc, responses.get(code));
            if (response == null) {
                problems.add(name + " " + code + ": unresolvable $ref " + responses.get(code).path("$ref").asText());
                continue;
            }
            if (response.path("description").asText("").isBlank()) {
                problems.add(name + " " + code + ": no description");
            }
            JsonNode content = response.path("content");
            if (code.startsWith("2")) {
                success = true;
                if (!code.equals("204")) {
                    JsonNode json = content.path("application/json");
                    if (!json.has("schema")) {
                        problems.add(name + " " + code + ": no application/json schema");
                    }
                    if (!json.has("examples") && !json.has("example")) {
                        problems.add(name + " " + code + ": no example");
                    }
                }
            } else if (code.startsWith("4") || code.startsWith("5")) {
                List<String> types = names(content);
                if (!types.equals(List.of("application/problem+json"))) {
                    problems.add(name + " " + code + ": content must be application/problem+json only, is " + types);
                } else if (!content.path("application/problem+json").path("schema").path("$ref").asText()
                        .equals("#/components/schemas/Problem")) {
                    problems.add(name + " " + code + ": not the Problem schema");
                }
            }
        }
        if (!success) {
            problems.add(name + ": no 2xx response");
        }
        // every operation needs a key with a role, and every one reads or writes the database
        // (but for ANY_ROLE_NO_DATABASE, which must then document neither 403 nor 503)
        for (String code : List.of("401", "403", "503")) {
            boolean exempt = ANY_ROLE_NO_DATABASE.contains(name) && !code.equals("401");
            if (!exempt && !codes.contains(code)) {
                problems.add(name + ": no " + code + " response");
            } else if (exempt && codes.contains(code)) {
                problems.add(name + ": listed in ANY_ROLE_NO_DATABASE but documents " + code + "; update the list");
            }
        }
        // every operation refuses a query parameter it does not take (QueryParamCheck)
        if (!codes.contains("400")) {
            problems.add(name + ": no 400 response");
        }
        // a POST or PUT refuses a body with no JSON Content-Type, whether it takes one or not (HttpFraming)
        if ((hasBody || name.startsWith("POST ") || name.startsWith("PUT ")) && !codes.contains("415")) {
            problems.add(name + ": takes a request body (or may be sent one) but documents no 415");
        }
        if (codes.contains("503")) {
            JsonNode unavailable = resolve(doc, responses.get("503"));
            if (unavailable != null && !unavailable.path("headers").has("Retry-After")) {
                problems.add(name + " 503: no Retry-After header");
            }
        }
    }

    /** A response, following a $ref to components/responses; null when the ref does not resolve. */
    private static JsonNode resolve(JsonNode doc, JsonNode response) {
        JsonNode r = response;
        for (int i = 0; i < 5 && r != null && r.has("$ref"); i++) {
            String ref = r.path("$ref").asText();
            String prefix = "#/components/responses/";
            r = ref.startsWith(prefix) ? doc.path("components").path("responses").get(ref.substring(prefix.length()))
                    : null;
        }
        return r;
    }

    @Test
    void documentDeclaresTagsAndSecurity() throws IOException {
        JsonNode doc = JSON.readTree(given().queryParam("format", "json").when().get("/q/openapi")
                .then().statusCode(200).extract().asString());
        List<String> tags = new ArrayList<>();
        doc.path("tags").forEach(t -> tags.add(t.path("name").asText()));
        assertEquals(List.of("Producers", "Workers", "Operators", "Queues", "Keys", "Schedules", "Webhooks", "Batches"), tags);
        assertEquals("bearer", doc.path("components").path("securitySchemes").path("apiKey").path("scheme").asText());
        assertFalse(doc.path("security").isEmpty(), "no global security requirement");
    }

    /**
     * Swagger UI renders descriptions as Markdown and drops anything that looks like an HTML tag,
     * so "Bearer <key>" would show as "Bearer ". Placeholders in angle brackets must sit in a
     * `code span`, where they are shown as written.
     */
    @Test
    void descriptionsShowPlaceholdersInSwaggerUi() throws IOException {
        JsonNode doc = JSON.readTree(given().queryParam("format", "json").when().get("/q/openapi")
                .then().statusCode(200).extract().asString());
        List<String> problems = new ArrayList<>();
        descriptions("", doc, problems);
        assertTrue(problems.isEmpty(), "Descriptions with an angle-bracket placeholder outside a `code span` "
                + "(Swagger UI would drop it):\n  " + String.join("\n  ", problems));
        String scheme = doc.path("components").path("securitySchemes").path("apiKey").path("description").asText();
        assertTrue(scheme.contains("`Authorization: Bearer <key>`"), scheme);
    }

    private static void descriptions(String at, JsonNode node, List<String> problems) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                String child = at + "/" + e.getKey();
                if ((e.getKey().equals("description") || e.getKey().equals("summary")) && e.getValue().isTextual()) {
                    String outsideCode = e.getValue().asText().replaceAll("`[^`]*`", "");
                    if (outsideCode.matches("(?s).*<[A-Za-z/][^>]*>.*")) {
                        problems.add(child + ": " + e.getValue().asText());
                    }
                } else {
                    descriptions(child, e.getValue(), problems);
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                descriptions(at + "/" + i, node.get(i), problems);
            }
        }
    }

    // ---- (c) Swagger UI -----------------------------------------------------------------------------

    @Test
    void swaggerUiIsServed() {
        String page = given().when().get("/q/swagger-ui").then().statusCode(200).extract().asString();
        assertTrue(page.toLowerCase().contains("swagger"), "the Swagger UI page does not look like Swagger UI");
    }
}
