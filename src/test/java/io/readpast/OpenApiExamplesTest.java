package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.readpast.testsupport.OpenApiValidation;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every example in the committed openapi/openapi.json validates against its own schema: the
 * examples of request and response bodies (per media type), of parameters, and of schemas and
 * their properties. A client generator or a reader copies them; they must be what the broker
 * takes and gives.
 */
class OpenApiExamplesTest {

    private final OpenApiValidation v = OpenApiValidation.get();

    @Test
    void everyExampleValidatesAgainstItsSchema() {
        List<String> bad = new ArrayList<>();
        int[] checked = {0};
        walk(v.spec(), "", bad, checked);
        assertTrue(checked[0] > 100, "the walk found the examples (" + checked[0] + ")");
        assertEquals(List.of(), bad, checked[0] + " examples checked");
    }

    /** Media types and parameters (a schema beside "examples"/"example"), and schemas with "examples". */
    private void walk(JsonNode node, String at, List<String> bad, int[] checked) {
        if (node.isObject()) {
            JsonNode schema = node.get("schema");
            if (schema != null && schema.isObject()) {
                if (node.has("example")) {
                    check(schema, node.get("example"), at + "/example", bad, checked);
                }
                JsonNode examples = node.get("examples");
                if (examples != null && examples.isObject()) {
                    examples.fields().forEachRemaining(e -> {
                        JsonNode value = e.getValue().has("$ref")
                                ? v.spec().at(e.getValue().get("$ref").asText().substring(1)) : e.getValue();
                        if (value.has("value")) {
                            check(schema, value.get("value"), at + "/examples/" + e.getKey(), bad, checked);
                        }
                    });
                }
            }
            if (isSchema(node) && node.has("examples") && node.get("examples").isArray()) {
                ObjectNode bare = ((ObjectNode) node.deepCopy());
                bare.remove("examples");
                int i = 0;
                for (JsonNode example : node.get("examples")) {
                    check(bare, example, at + "/examples/" + i++, bad, checked);
                }
            }
            node.fields().forEachRemaining(e -> walk(e.getValue(), at + "/" + e.getKey(), bad, checked));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), at + "/" + i, bad, checked);
            }
        }
    }

    private static boolean isSchema(JsonNode node) {
        return node.has("type") || node.has("$ref") || node.has("anyOf") || node.has("oneOf") || node.has("allOf")
                || node.has("properties");
    }

    private void check(JsonNode schema, JsonNode example, String at, List<String> bad, int[] checked) {
        checked[0]++;
        for (OpenApiValidation.Finding f : v.validate(schema, example, true)) {
            bad.add(at + ": " + f.at() + " " + f.message());
        }
    }
}
