package io.readpast.api.http;

import io.quarkus.smallrye.openapi.OpenApiFilter;
import io.readpast.core.JobStatus;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.media.MediaType;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Puts the rules the broker enforces into the OpenAPI document, where validators, gateways
 * and client generators read them, rather than only in prose:
 * <ul>
 * <li>request bodies: {@code additionalProperties: false} (unknown fields are a 400); every
 * optional field also takes {@code null} (the broker reads it as absent) and carries no
 * {@code default}, so that generated clients leave it unset instead of sending a value (the
 * default is said in the description);</li>
 * <li>path and query parameters: the name rules, enums and bounds {@link Validate} checks.</li>
 * </ul>
 * Runs at build time, so the document stored in openapi/ and the served one are this one.
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.BUILD)
public class OpenApiRules implements OASFilter {

    static final String QUEUE_PATTERN = io.readpast.core.JobRules.QUEUE_PATTERN;
    static final String TYPE_PATTERN = io.readpast.core.JobRules.TYPE_PATTERN;
    static final String KEY_NAME_PATTERN = io.readpast.core.JobRules.KEY_NAME_PATTERN;
    /** 1+ characters, none a control character (as {@link Validate#text} checks; blank is refused too). */
    static final String NO_CONTROL_PATTERN = "^[^\\u0000-\\u001F\\u007F-\\u009F]+$";
    static final String UUID_PATTERN =
            "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
    static final String JOB_ID_PATTERN = "^[0-9]{1,19}$";
    /** readpast.limits.page-max at its default. */
    static final int PAGE_MAX = 500;

    @Override
    public void filterOpenAPI(OpenAPI api) {
        Map<String, Schema> schemas = api.getComponents().getSchemas();
        Set<String> inputs = new LinkedHashSet<>();
        for (Map.Entry<String, PathItem> path : api.getPaths().getPathItems().entrySet()) {
            for (Map.Entry<PathItem.HttpMethod, Operation> op : path.getValue().getOperations().entrySet()) {
                Operation operation = op.getValue();
                sharedResponses(op.getKey(), operation);
                if (operation.getParameters() != null) {
                    for (Parameter p : operation.getParameters()) {
                        parameter(path.getKey(), p);
                    }
                }
                if (operation.getRequestBody() != null && operation.getRequestBody().getContent() != null) {
                    for (MediaType m : operation.getRequestBody().getContent().getMediaTypes().values()) {
                        collectRefs(m.getSchema(), schemas, inputs);
                    }
                }
            }
        }
        inputs.remove(ApiDocs.ANY_VALUE);
        for (String name : inputs) {
            inputSchema(schemas.get(name));
        }
        for (Schema schema : schemas.values()) {
            nullableEnums(schema);
        }
    }

    /**
     * A property that may be null and has an enum lists null among its values: in OpenAPI 3.1
     * (JSON Schema) the enum is checked on its own, so {"type": ["string", "null"], "enum":
     * ["round-robin"]} would refuse the null that the type allows.
     */
    private static void nullableEnums(Schema s) {
        if (s == null) {
            return;
        }
        if (s.getEnumeration() != null && s.getType() != null && s.getType().contains(Schema.SchemaType.NULL)
                && !s.getEnumeration().contains(null)) {
            List<Object> values = new ArrayList<>(s.getEnumeration());
            values.add(null);
            s.setEnumeration(values);
        }
        if (s.getProperties() != null) {
            s.getProperties().values().forEach(OpenApiRules::nullableEnums);
        }
        nullableEnums(s.getItems());
    }

    /**
     * Answers any operation can give though its method does not name them: 400 (a query parameter
     * it does not take, QueryParamCheck), 406 (an Accept the operation cannot satisfy), 415 for a
     * POST or PUT (a body sent without a JSON Content-Type, HttpFraming) and, where a body is
     * taken, 413 (over the HTTP body limit).
     */
    private static void sharedResponses(PathItem.HttpMethod method, Operation operation) {
        var responses = operation.getResponses();
        if (responses == null) {
            return;
        }
        if (!responses.hasAPIResponse("400")) {
            responses.addAPIResponse("400", OASFactory.createAPIResponse()
                    .ref("#/components/responses/" + ApiDocs.BAD_REQUEST));
        }
        if ((method == PathItem.HttpMethod.POST || method == PathItem.HttpMethod.PUT
                || method == PathItem.HttpMethod.PATCH) && !responses.hasAPIResponse("415")) {
            responses.addAPIResponse("415", OASFactory.createAPIResponse()
                    .ref("#/components/responses/" + ApiDocs.UNSUPPORTED_MEDIA_TYPE));
        }
        if (!responses.hasAPIResponse("406")) {
            responses.addAPIResponse("406", OASFactory.createAPIResponse()
                    .ref("#/components/responses/" + ApiDocs.NOT_ACCEPTABLE));
        }
        if (operation.getRequestBody() != null && !responses.hasAPIResponse("413")) {
            responses.addAPIResponse("413", OASFactory.createAPIResponse()
                    .ref("#/components/responses/" + ApiDocs.TOO_LARGE));
        }
        responses.setAPIResponses(new java.util.TreeMap<>(responses.getAPIResponses()));
    }

    /** The component schemas a request body reaches, through properties and items. */
    private static void collectRefs(Schema s, Map<String, Schema> schemas, Set<String> into) {
        if (s == null) {
            return;
        }
        if (s.getRef() != null) {
            String name = s.getRef().substring(s.getRef().lastIndexOf('/') + 1);
            if (into.add(name)) {
                collectRefs(schemas.get(name), schemas, into);
            }
        }
        collectRefs(s.getItems(), schemas, into);
        if (s.getProperties() != null) {
            for (Schema p : s.getProperties().values()) {
                collectRefs(p, schemas, into);
            }
        }
        for (List<Schema> list : Arrays.asList(s.getAnyOf(), s.getOneOf(), s.getAllOf())) {
            if (list != null) {
                for (Schema x : list) {
                    collectRefs(x, schemas, into);
                }
            }
        }
    }

    private static void inputSchema(Schema s) {
        if (s == null || s.getProperties() == null) {
            return;
        }
        s.setAdditionalPropertiesBoolean(Boolean.FALSE);
        List<String> required = s.getRequired() == null ? List.of() : s.getRequired();
        Map<String, Schema> props = new LinkedHashMap<>();
        for (Map.Entry<String, Schema> e : s.getProperties().entrySet()) {
            Schema p = e.getValue();
            items(e.getKey(), p);
            if (required.contains(e.getKey())) {
                if (isType(p, Schema.SchemaType.STRING) && p.getMinLength() == null) {
                    p.setMinLength(1);
                }
                props.put(e.getKey(), p);
            } else {
                props.put(e.getKey(), optional(p));
            }
        }
        s.setProperties(props);
    }

    /** Element rules of the string lists bodies carry. */
    private static void items(String property, Schema p) {
        Schema items = p.getItems();
        if (items == null || !isType(items, Schema.SchemaType.STRING)) {
            return;
        }
        switch (property) {
            case "queues" -> items.minLength(1).maxLength(Validate.NAME_MAX).pattern(QUEUE_PATTERN);
            case "tags" -> items.minLength(1).maxLength(100).pattern(NO_CONTROL_PATTERN);
            case "roles" -> items.enumeration(new ArrayList<>(List.of("producer", "worker", "admin")));
            default -> {
            }
        }
    }

    /** An optional field: null is accepted (as absent), and there is no default for a client to send. */
    private static Schema optional(Schema p) {
        Object dflt = p.getDefaultValue();
        if (dflt != null) {
            p.setDefaultValue(null);
            String d = p.getDescription() == null ? "" : p.getDescription();
            if (!d.toLowerCase(java.util.Locale.ROOT).contains("default")) {
                p.setDescription((d.isEmpty() ? "" : d + " ") + "Absent or null: " + dflt + ".");
            }
        }
        if (p.getRef() != null) {
            if (p.getRef().endsWith("/" + ApiDocs.ANY_VALUE)) {
                return p; // any JSON value, null included
            }
            Schema wrapper = OASFactory.createSchema().description(p.getDescription());
            wrapper.addAnyOf(OASFactory.createSchema().ref(p.getRef()));
            wrapper.addAnyOf(OASFactory.createSchema().addType(Schema.SchemaType.NULL));
            return wrapper;
        }
        if (p.getType() != null && !p.getType().contains(Schema.SchemaType.NULL)) {
            p.addType(Schema.SchemaType.NULL);
            if (p.getEnumeration() != null && !p.getEnumeration().contains(null)) {
                List<Object> values = new ArrayList<>(p.getEnumeration());
                values.add(null);
                p.setEnumeration(values);
            }
        }
        return p;
    }

    private static boolean isType(Schema s, Schema.SchemaType t) {
        return s.getType() != null && s.getType().contains(t);
    }

    /** Path and query parameter rules, by path and name. */
    private static void parameter(String path, Parameter p) {
        Schema s = p.getSchema();
        if (s == null) {
            return;
        }
        boolean inPath = p.getIn() == Parameter.In.PATH;
        switch (p.getName()) {
            case "id" -> {
                if (path.startsWith("/webhooks")) {
                    s.format("uuid").pattern(UUID_PATTERN);
                } else {
                    s.pattern(JOB_ID_PATTERN);
                }
            }
            case "name" -> {
                if (path.startsWith("/keys")) {
                    s.minLength(1).maxLength(100).pattern(KEY_NAME_PATTERN);
                } else if (path.startsWith("/schedules")) {
                    s.minLength(1).maxLength(100).pattern(QUEUE_PATTERN);
                } else {
                    s.minLength(1).maxLength(Validate.NAME_MAX).pattern(QUEUE_PATTERN);
                }
            }
            case "queue" -> s.minLength(1).maxLength(Validate.NAME_MAX).pattern(QUEUE_PATTERN);
            case "type" -> s.minLength(1).maxLength(Validate.NAME_MAX).pattern(TYPE_PATTERN);
            case "tag" -> s.minLength(1).maxLength(100).pattern(NO_CONTROL_PATTERN);
            case "after" -> s.minLength(1).maxLength(100);
            case "limit" -> s.maximum(BigDecimal.valueOf(PAGE_MAX));
            case "status" -> {
                List<Object> values = new ArrayList<>();
                if (path.startsWith("/webhooks")) {
                    values.addAll(io.readpast.webhook.Webhooks.STATUSES);
                    s.enumeration(values);
                } else {
                    // comma-separated statuses: an array, form style, not exploded (?status=PENDING,DEAD)
                    for (JobStatus st : JobStatus.values()) {
                        values.add(st.name());
                    }
                    Schema items = OASFactory.createSchema().addType(Schema.SchemaType.STRING).enumeration(values);
                    s.setType(List.of(Schema.SchemaType.ARRAY));
                    s.setItems(items);
                    s.minItems(1);
                    p.setStyle(Parameter.Style.FORM);
                    p.setExplode(Boolean.FALSE);
                    p.setExample(List.of("PENDING", "LEASED"));
                }
            }
            default -> {
            }
        }
        if (inPath && s.getMinLength() == null && isType(s, Schema.SchemaType.STRING)) {
            s.setMinLength(1);
        }
    }
}
