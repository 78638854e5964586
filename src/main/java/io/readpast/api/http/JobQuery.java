package io.readpast.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.readpast.core.BrokerException;
import io.readpast.store.JobFilter;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Iterator;
import java.util.Map;

/**
 * The one job filter of {@code GET /jobs} (query parameters) and {@code POST /jobs/bulk} (its
 * {@code filter} object), validated the same way for both: each field names itself in a 400.
 */
public final class JobQuery {

    /** Most members of a payload filter. */
    static final int PAYLOAD_MEMBERS_MAX = 20;
    /** Longest error substring. */
    static final int ERROR_MAX = 200;

    private JobQuery() {
    }

    /** The raw fields, as the query string or the bulk body gives them; null: not given. */
    public record Raw(String queue, String status, String type, String tag, String fairnessKey, String groupKey,
                      String batch, String error, String createdAfter, String createdBefore, String finishedAfter,
                      String finishedBefore, JsonNode payload) {
    }

    /** The validated filter; {@code after} and {@code limit} as given. */
    public static JobFilter filter(Raw r, Long after, int limit) {
        return new JobFilter(
                r.queue() == null ? null : Validate.queueName("queue", r.queue()),
                r.type() == null ? null : Validate.typeName(r.type()),
                Validate.statuses(r.status()),
                r.tag() == null ? null : Validate.text("tag", r.tag(), 100, true),
                r.fairnessKey() == null ? null : Validate.text("fairnessKey", r.fairnessKey(), Validate.NAME_MAX, false),
                r.groupKey() == null ? null : Validate.text("groupKey", r.groupKey(), Validate.NAME_MAX, true),
                r.batch() == null ? null : batchId(r.batch()),
                r.error() == null ? null : Validate.text("error", r.error(), ERROR_MAX, true),
                time("createdAfter", r.createdAfter()), time("createdBefore", r.createdBefore()),
                time("finishedAfter", r.finishedAfter()), time("finishedBefore", r.finishedBefore()),
                payload(r.payload()), after, limit);
    }

    /** A query parameter {@code payload}: JSON text of an object. */
    public static JsonNode payloadParam(String raw) {
        if (raw == null) {
            return null;
        }
        try {
            // numbers as written (1.50 stays 1.50), as in request bodies (JacksonConfig)
            return io.readpast.store.Json.mapper().reader()
                    .with(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                    .readTree(raw);
        } catch (java.io.IOException | RuntimeException e) {
            throw BrokerException.invalid("'payload' must be a JSON object, e.g. {\"customer\":\"acme\"}.");
        }
    }

    private static Long batchId(String raw) {
        Long id = Validate.positiveId(raw);
        if (id == null) {
            throw BrokerException.invalid("'batch' must be a batch id (a positive integer); got '"
                    + Validate.printable(raw, 40) + "'.");
        }
        return id;
    }

    private static Instant time(String field, String raw) {
        if (raw == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(raw).toInstant();
        } catch (java.time.DateTimeException e) {
            throw BrokerException.invalid("'" + field + "' must be an ISO-8601 date-time with offset, "
                    + "e.g. 2030-01-01T12:00:00Z; got '" + Validate.printable(raw, 40) + "'.");
        }
    }

    /**
     * An object of at most {@link #PAYLOAD_MEMBERS_MAX} members, each a string, number, boolean
     * or null: what both engines compare the same way (the payload has each member, equal).
     */
    private static String payload(JsonNode node) {
        if (node == null) {
            return null;
        }
        if (!node.isObject() || node.isEmpty()) {
            throw BrokerException.invalid("'payload' must be a JSON object with at least one member, "
                    + "e.g. {\"customer\":\"acme\"}.");
        }
        if (node.size() > PAYLOAD_MEMBERS_MAX) {
            throw BrokerException.invalid("'payload' takes at most " + PAYLOAD_MEMBERS_MAX + " members.");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isValueNode()) {
                throw BrokerException.invalid("'payload." + Validate.printable(e.getKey(), 40)
                        + "' must be a string, number, boolean or null: the filter compares top-level members.");
            }
        }
        Validate.storableJson("payload", node);
        return node.toString();
    }
}
