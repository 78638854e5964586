package io.readpast.api.http;

import io.readpast.core.BrokerException;
import io.readpast.core.JobRules;

import java.util.List;
import java.util.UUID;

/** Input checks shared by the resources; each failure is a 400 that names the field. */
public final class Validate {

    public static final int NAME_MAX = JobRules.NAME_MAX;

    private Validate() {
    }

    public static <T> T body(T body) {
        if (body == null) {
            throw BrokerException.invalid("A JSON request body is required.");
        }
        return body;
    }

    public static String queueName(String field, String value) {
        required(field, value);
        if (!JobRules.isQueueName(value)) {
            throw BrokerException.invalid("'" + field + "' must be " + JobRules.QUEUE_RULE);
        }
        return value;
    }

    /** Tags as stored (a JSON array), or null when none are given. */
    public static String tagsJson(String field, List<String> tags) {
        if (tags == null) {
            return null;
        }
        if (tags.size() > JobRules.TAGS_MAX) {
            throw BrokerException.invalid("'" + field + "' may hold at most " + JobRules.TAGS_MAX + " tags.");
        }
        for (int i = 0; i < tags.size(); i++) {
            text(field + "[" + i + "]", tags.get(i), JobRules.TAG_MAX, true);
        }
        return io.readpast.store.Json.write(tags);
    }

    public static String typeName(String value) {
        required("type", value);
        if (!JobRules.isTypeName(value)) {
            throw BrokerException.invalid("'type' must be " + JobRules.TYPE_RULE);
        }
        return value;
    }

    /**
     * Where {@code s} holds a UTF-16 surrogate without its partner (which no database here can
     * store: it would be replaced), or -1.
     */
    static int loneSurrogateAt(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return i;
            }
            if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * A JSON value handed through as given (a payload, a result): every string and member name
     * in it must be storable (see {@link #loneSurrogateAt}); the refusal names the path.
     */
    static void storableJson(String field, com.fasterxml.jackson.databind.JsonNode node) {
        if (storable(node)) {
            return; // nearly always: the walk below, which names the path, runs only to say where
        }
        storableJsonNamed(field, node);
    }

    /** Whether every string and member name in {@code node} is storable; allocates nothing. */
    private static boolean storable(com.fasterxml.jackson.databind.JsonNode node) {
        if (node.isTextual()) {
            return loneSurrogateAt(node.textValue()) < 0;
        }
        if (node.isObject()) {
            for (var it = node.fields(); it.hasNext(); ) {
                var e = it.next();
                if (loneSurrogateAt(e.getKey()) >= 0 || !storable(e.getValue())) {
                    return false;
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                if (!storable(node.get(i))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static void storableJsonNamed(String field, com.fasterxml.jackson.databind.JsonNode node) {
        if (node.isTextual()) {
            if (loneSurrogateAt(node.textValue()) >= 0) {
                throw BrokerException.invalid("'" + field + "' holds a lone UTF-16 surrogate, which cannot be stored "
                        + "as given; send the string as valid UTF-16 (surrogates in pairs).");
            }
        } else if (node.isObject()) {
            for (var it = node.fields(); it.hasNext(); ) {
                var e = it.next();
                if (loneSurrogateAt(e.getKey()) >= 0) {
                    throw BrokerException.invalid("'" + field + "' has a member name holding a lone UTF-16 surrogate, "
                            + "which cannot be stored as given.");
                }
                storableJsonNamed(field + "." + printable(e.getKey(), 40), e.getValue());
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                storableJsonNamed(field + "[" + i + "]", node.get(i));
            }
        }
    }

    /** Free text such as a worker id or tag: no control characters, bounded length. */
    public static String text(String field, String value, int max, boolean required) {
        if (value == null) {
            if (required) {
                required(field, null);
            }
            return null;
        }
        if (value.isBlank() || value.length() > max || value.chars().anyMatch(Character::isISOControl)) {
            throw BrokerException.invalid("'" + field + "' must be 1-" + max
                    + " characters without control characters.");
        }
        return value;
    }

    /**
     * An idempotency key: free text as {@link #text}, but not ending in a space. SQL Server
     * ignores trailing spaces when it compares strings (under every collation), so "k" and
     * "k " would be one key there and two on PostgreSQL; refusing them keeps both engines alike.
     */
    static String idempotencyKey(String value) {
        return keyText("idempotencyKey", value);
    }

    /** A key compared on both engines (idempotency, fairness): {@link #text}, not ending in a space. */
    static String keyText(String field, String value) {
        String key = text(field, value, NAME_MAX, false);
        if (key != null && key.endsWith(" ")) {
            throw BrokerException.invalid("'" + field + "' must not end with a space.");
        }
        return key;
    }

    /** Free text that may span lines: tabs and line breaks are fine, other control characters (NUL...) are not. */
    public static void noControlCharacters(String field, String value) {
        if (value.chars().anyMatch(c -> Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r')) {
            throw BrokerException.invalid("'" + field + "' must not contain control characters other than tab and line breaks.");
        }
    }

    /** 8-4-4-4-12 hexadecimal digits, either case (checked by hand: it runs for every acknowledged job). */
    public static boolean isUuidText(String s) {
        if (s.length() != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            char c = s.charAt(i);
            boolean ok = i == 8 || i == 13 || i == 18 || i == 23 ? c == '-'
                    : c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    public static String leaseId(String value) {
        required("leaseId", value);
        if (!isUuidText(value)) {
            throw BrokerException.invalid("'leaseId' must be the UUID the claim returned.");
        }
        return UUID.fromString(value).toString();
    }

    public static int range(String field, Integer value, int dflt, int min, int max) {
        int v = value == null ? dflt : value;
        if (v < min || v > max) {
            throw BrokerException.invalid("'" + field + "' must be between " + min + " and " + max + " (got " + v + ").");
        }
        return v;
    }

    public static Integer optionalRange(String field, Integer value, int min, int max) {
        return value == null ? null : range(field, value, 0, min, max);
    }

    public static Long optionalRange(String field, Long value, long min, long max) {
        if (value != null && (value < min || value > max)) {
            throw BrokerException.invalid("'" + field + "' must be between " + min + " and " + max + " (got " + value + ").");
        }
        return value;
    }

    public static List<String> queueList(String field, List<String> values) {
        return nameList(field, values, "queue names (omit it for every queue)", (f, v) -> queueName(f, v));
    }

    /** A claim's job types: null (every type), or 1-100 type names, duplicates dropped. */
    public static List<String> typeList(String field, List<String> values) {
        return nameList(field, values, "job types (omit it for every type)", (f, v) -> {
            if (v == null || !JobRules.isTypeName(v)) {
                throw BrokerException.invalid("'" + f + "' must be " + JobRules.TYPE_RULE);
            }
        });
    }

    /** null (every one), or 1-100 names each checked by {@code check}, duplicates dropped. */
    private static List<String> nameList(String field, List<String> values, String what,
                                         java.util.function.BiConsumer<String, String> check) {
        if (values == null) {
            return null;
        }
        if (values.isEmpty() || values.size() > 100) {
            throw BrokerException.invalid("'" + field + "' must list 1-100 " + what + ".");
        }
        for (int i = 0; i < values.size(); i++) {
            check.accept(field + "[" + i + "]", values.get(i));
        }
        return List.copyOf(new java.util.LinkedHashSet<>(values));
    }

    public static void batchSize(String field, List<?> items, int max) {
        if (items == null || items.isEmpty() || items.size() > max) {
            throw BrokerException.invalid("'" + field + "' must hold 1-" + max + " items.");
        }
    }

    /** An integer query parameter, with a default when absent. */
    public static int queryInt(String field, String raw, int dflt, int min, int max) {
        if (raw == null || raw.isEmpty()) {
            return dflt;
        }
        try {
            return range(field, Integer.parseInt(raw), dflt, min, max);
        } catch (NumberFormatException e) {
            throw BrokerException.invalid("'" + field + "' must be an integer between " + min + " and " + max + ".");
        }
    }

    /** A boolean query parameter: true or false (any case); absent or empty takes the default. */
    public static boolean queryBoolean(String field, String raw, boolean dflt) {
        if (raw == null || raw.isEmpty()) {
            return dflt;
        }
        // exactly as OpenAPI serialises a boolean query parameter, as the spec says
        if (raw.equals("true")) {
            return true;
        }
        if (raw.equals("false")) {
            return false;
        }
        throw BrokerException.invalid("'" + field + "' takes true or false; got '" + printable(raw) + "'.");
    }

    /** A keyset cursor ('next' of the previous page): a job id. */
    public static Long cursor(String raw) {
        if (raw == null || raw.isEmpty()) {
            return null;
        }
        try {
            long v = Long.parseLong(raw);
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // fall through
        }
        throw BrokerException.invalid("'after' must be the 'next' value of a previous page.");
    }

    /** Comma-separated status names, as codes; null when absent. */
    public static List<Integer> statuses(String raw) {
        if (raw == null || raw.isEmpty()) {
            return null;
        }
        List<Integer> codes = new java.util.ArrayList<>();
        for (String part : raw.split(",")) {
            try {
                codes.addAll(io.readpast.core.JobStatus.valueOf(part.strip()).storedCodes());
            } catch (IllegalArgumentException e) {
                throw BrokerException.invalid("'status' takes PENDING, WAITING, LEASED, PROCESSING, SUCCEEDED, DEAD or CANCELLED "
                        + "(comma-separated); got '" + printable(part) + "'.");
            }
        }
        return codes;
    }

    public static long jobId(String raw) {
        Long id = positiveId(raw);
        if (id == null) {
            throw new BrokerException(BrokerException.Kind.NOT_FOUND,
                    "No job with id '" + printable(raw) + "': job ids are positive integers.");
        }
        return id;
    }

    /** An id as the API writes them (a positive integer), or null when {@code raw} is none. */
    static Long positiveId(String raw) {
        try {
            long id = Long.parseLong(raw);
            return id > 0 ? id : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    public static String printable(String raw) {
        return printable(raw, 60);
    }

    static String printable(String raw, int max) {
        String s = raw.length() > max ? raw.substring(0, max) + "..." : raw;
        return s.replaceAll("\\p{Cntrl}", "?");
    }

    private static void required(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw BrokerException.invalid("'" + field + "' is required.");
        }
    }
}
