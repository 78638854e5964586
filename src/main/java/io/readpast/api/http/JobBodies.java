package io.readpast.api.http;

import io.readpast.http.Problem;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.Enqueuer;
import io.readpast.core.Operations;
import io.readpast.core.BrokerException;
import io.readpast.security.Caller;
import io.readpast.store.Json;
import jakarta.inject.Singleton;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * What the job resources share: turning request bodies into the broker's commands (enqueue,
 * JSON values, tags, progress) and answering batch items one by one.
 */
@Singleton
public class JobBodies {

    public static final long MAX_DELAY_SECONDS = 10L * 366 * 24 * 3600;
    /** The longest timeoutSeconds: 30 days. */
    static final int TIMEOUT_MAX_SECONDS = 2_592_000;
    private static final Instant RUN_AT_MIN = Instant.parse("1970-01-01T00:00:00Z");
    private static final Instant RUN_AT_MAX = Instant.parse("9999-12-31T23:59:59Z");

    private final ReadpastConfig config;
    private final Caller caller;
    private final Operations operations;
    private final Enqueuer enqueuer;

    public JobBodies(ReadpastConfig config, Caller caller, Operations operations, Enqueuer enqueuer) {
        this.config = config;
        this.caller = caller;
        this.operations = operations;
        this.enqueuer = enqueuer;
    }

    /**
     * For a queue-scoped key, the jobs among {@code ids} it may not touch: those of queues
     * outside its scope, and those that do not exist, which it cannot tell apart (both are
     * answered as missing). Empty for a key of every queue, at no cost. A lease id is the
     * capability to work a job, but only within the key's scope.
     */
    public java.util.Set<Long> outOfScope(java.util.Collection<Long> ids) {
        java.util.Set<String> scope = caller.queueScope();
        if (scope == null || ids.isEmpty()) {
            return java.util.Set.of();
        }
        java.util.Map<Long, String> queues = operations.queuesOf(ids);
        java.util.Set<Long> out = new java.util.HashSet<>();
        for (Long id : ids) {
            String q = queues.get(id);
            if (q == null || !scope.contains(q)) {
                out.add(id);
            }
        }
        return out;
    }

    /** {@link #outOfScope} for one job: out of scope is answered exactly as missing (404). */
    public void requireInScope(long id) {
        if (!outOfScope(java.util.List.of(id)).isEmpty()) {
            throw BrokerException.jobNotFound(id);
        }
    }

    /** Turns one batch item into a value; may throw for a bad item. */
    @FunctionalInterface
    public interface ItemParser<T> {
        T parse(JsonNode node) throws JsonProcessingException;
    }

    /**
     * Parses each item of a batch on its own, so that a bad item fails only itself: its 4xx
     * answer goes into {@code results}; the good ones are returned, their positions in {@code validIndex}.
     */
    public static <T> List<T> parseItems(List<JsonNode> items, String what, Responses.ItemResult[] results,
                                  List<Integer> validIndex, ItemParser<T> parser) {
        List<T> valid = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            try {
                JsonNode node = items.get(i);
                if (node == null || !node.isObject()) {
                    throw BrokerException.invalid(what + " must be a JSON object.");
                }
                valid.add(parser.parse(node));
                validIndex.add(i);
            } catch (BrokerException e) {
                results[i] = refused(i, null, e);
            } catch (JsonProcessingException e) {
                results[i] = new Responses.ItemResult(i, null, 400, null, new Problem(
                        "urn:readpast:problem:malformed-json", "Malformed item", 400, ProblemMappers.describe(e), null));
            }
        }
        return valid;
    }

    public static Responses.ItemResult refused(int index, String id, BrokerException e) {
        return new Responses.ItemResult(index, id, ProblemMappers.status(e), null, ProblemMappers.problem(e));
    }

    /**
     * Validates one enqueue request and turns it into the broker's command; its trace context is
     * its own fields', else the request's headers' ({@code headers}, null: none).
     */
    public Enqueuer.NewJobRequest toNewJob(Requests.Enqueue b, io.readpast.core.TraceContext headers) {
        String queue = Validate.queueName("queue", b.queue());
        caller.requireQueue(queue);
        String type = Validate.typeName(b.type());
        String payload = b.payload() == null ? "null" : jsonText("payload", b.payload());
        int priority = b.priority() == null ? 0 : b.priority();
        // a delay of 0 is no delay: client generators send the field's old default beside runAt
        if (b.delaySeconds() != null && b.delaySeconds() != 0 && b.runAt() != null) {
            throw BrokerException.invalid("Give either 'delaySeconds' or 'runAt', not both.");
        }
        long delaySeconds = Validate.optionalRange("delaySeconds", b.delaySeconds(), 0L, MAX_DELAY_SECONDS) == null
                ? 0 : b.delaySeconds();
        Enqueuer.Debounce debounce = debounce(b);
        if (debounce != null) {
            delaySeconds = debounce.seconds(); // due when its window ends
        }
        Instant runAt = runAt(b.runAt());
        String tags = Validate.tagsJson("tags", b.tags());
        Integer maxAttempts = Validate.optionalRange("maxAttempts", b.maxAttempts(), 1, 1000);
        String key = Validate.idempotencyKey(b.idempotencyKey());
        String webhookUrl = io.readpast.webhook.WebhookUrls.check("webhookUrl", b.webhookUrl(), config.webhooks());
        Instant expiresAt = JobOptions.expiresAt(b.expiresAt(), runAt);
        enqueuer.requireFutureExpiry(expiresAt);
        return new Enqueuer.NewJobRequest(queue, type, payload, tags, key, priority, maxAttempts, runAt,
                delaySeconds * 1000, caller.name(), webhookUrl, expiresAt,
                JobOptions.uniqueFor(b.uniqueFor()), Validate.text("groupKey", b.groupKey(), Validate.NAME_MAX, false),
                b.traceparent() != null ? io.readpast.core.TraceContext.parse(b.traceparent(), b.tracestate()) : headers,
                Validate.keyText("fairnessKey", b.fairnessKey()),
                Validate.optionalRange("timeoutSeconds", b.timeoutSeconds(), 1, TIMEOUT_MAX_SECONDS),
                retryPolicy(b.retry()));
    }


    /** The most a debounce window may last, in seconds (a day). */
    static final long DEBOUNCE_MAX_SECONDS = 86_400;

    /**
     * The request's debounce (debounceKey with debounceSeconds), checked; null when it has none.
     * Refused beside the fields that decide a job's identity or due time another way.
     */
    public static Enqueuer.Debounce debounce(Requests.Enqueue b) {
        if (b.debounceKey() == null && b.debounceSeconds() == null) {
            return null;
        }
        if (b.debounceKey() == null || b.debounceSeconds() == null) {
            throw BrokerException.invalid("'debounceKey' and 'debounceSeconds' go together: give both or neither.");
        }
        String key = Validate.text("debounceKey", b.debounceKey(), Validate.NAME_MAX, true);
        long seconds = Validate.optionalRange("debounceSeconds", b.debounceSeconds(), 1L, DEBOUNCE_MAX_SECONDS);
        String other = b.idempotencyKey() != null ? "idempotencyKey" : b.uniqueFor() != null ? "uniqueFor"
                : b.groupKey() != null ? "groupKey" : b.dependsOn() != null ? "dependsOn" : b.runAt() != null ? "runAt"
                : b.delaySeconds() != null && b.delaySeconds() != 0 ? "delaySeconds" : null;
        if (other != null) {
            throw BrokerException.invalid("A debounced job cannot carry '" + other + "': its window decides when it "
                    + "runs and which enqueue it is.");
        }
        return new Enqueuer.Debounce(key, seconds);
    }

    /** Batch items are always new jobs: a debounce is refused there. */
    public static void refuseDebounce(Requests.Enqueue item) {
        if (item.debounceKey() != null || item.debounceSeconds() != null) {
            throw BrokerException.invalid("'debounceKey' and 'debounceSeconds' are taken by POST /jobs only, not in "
                    + "a batch.");
        }
    }

    /**
     * A job's own retry backoff as the JSON text the failure path reads (RetryPolicy): the
     * request's fields checked, defaults filled in; null when absent.
     */
    static String retryPolicy(Requests.Retry r) {
        if (r == null) {
            return null;
        }
        java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
        if (r.delaysSeconds() != null) {
            if (r.baseSeconds() != null || r.factor() != null || r.capSeconds() != null || r.jitter() != null) {
                throw BrokerException.invalid("'retry' takes either 'delaysSeconds' or 'baseSeconds' (with 'factor', "
                        + "'capSeconds', 'jitter'), not both.");
            }
            if (r.delaysSeconds().isEmpty() || r.delaysSeconds().size() > 100) {
                throw BrokerException.invalid("'retry.delaysSeconds' takes 1 to 100 delays.");
            }
            List<Number> delays = new ArrayList<>();
            for (Double d : r.delaysSeconds()) {
                delays.add(number(seconds("retry.delaysSeconds", d, 0, TIMEOUT_MAX_SECONDS)));
            }
            out.put("delaysSeconds", delays);
            return Json.write(out);
        }
        if (r.baseSeconds() == null) {
            throw BrokerException.invalid("'retry' needs 'baseSeconds' (exponential) or 'delaysSeconds' (a list).");
        }
        double base = seconds("retry.baseSeconds", r.baseSeconds(), 0, 86_400);
        double factor = r.factor() == null ? 2 : seconds("retry.factor", r.factor(), 1, 10);
        double cap = r.capSeconds() == null ? Math.max(base, 3600) : seconds("retry.capSeconds", r.capSeconds(), 0,
                TIMEOUT_MAX_SECONDS);
        if (cap < base) {
            throw BrokerException.invalid("'retry.capSeconds' must be at least 'retry.baseSeconds'.");
        }
        out.put("baseSeconds", number(base));
        out.put("factor", number(factor));
        out.put("capSeconds", number(cap));
        out.put("jitter", r.jitter() == null || r.jitter());
        return Json.write(out);
    }

    /** A whole number as an integer (5, not 5.0), else as given. */
    private static Number number(double d) {
        return d == Math.rint(d) ? (Number) (long) d : (Number) d;
    }

    private static double seconds(String field, Double value, double min, double max) {
        if (value == null || value.isNaN() || value < min || value > max) {
            throw BrokerException.invalid("'" + field + "' must be a number from " + (long) min + " to " + (long) max
                    + ".");
        }
        return value;
    }

    /** A request's {@code runAt}: an ISO-8601 date-time with offset both engines can store; null when absent. */
    public static Instant runAt(String raw) {
        if (raw == null) {
            return null;
        }
        Instant runAt;
        try {
            runAt = OffsetDateTime.parse(raw).toInstant();
        } catch (java.time.DateTimeException e) {
            throw BrokerException.invalid("'runAt' must be an ISO-8601 date-time with offset, "
                    + "e.g. 2030-01-01T12:00:00Z.");
        }
        // both engines can store these (SQL Server's datetime2 ends with year 9999)
        if (runAt.isBefore(RUN_AT_MIN) || runAt.isAfter(RUN_AT_MAX)) {
            throw BrokerException.invalid("'runAt' must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.");
        }
        return runAt;
    }

    /** The batch and parents a request ties its job to (dependsOn, onParentFailure); validated. */
    public static io.readpast.store.JobLinks links(Requests.Enqueue b) {
        boolean run = switch (b.onParentFailure() == null ? "cancel" : b.onParentFailure()) {
            case "cancel" -> false;
            case "run" -> true;
            default -> throw BrokerException.invalid("'onParentFailure' takes cancel or run; got '"
                    + Validate.printable(b.onParentFailure()) + "'.");
        };
        if (b.dependsOn() == null) {
            if (b.onParentFailure() != null) {
                throw BrokerException.invalid("'onParentFailure' needs 'dependsOn'.");
            }
            return io.readpast.store.JobLinks.NONE;
        }
        List<Long> jobs = ids("dependsOn.jobs", b.dependsOn().jobs());
        List<Long> batches = ids("dependsOn.batches", b.dependsOn().batches());
        if (jobs.isEmpty() && batches.isEmpty()) {
            throw BrokerException.invalid("'dependsOn' names no job and no batch.");
        }
        if (jobs.size() + batches.size() > io.readpast.core.Batches.MAX_PARENTS) {
            throw BrokerException.invalid("'dependsOn' names " + (jobs.size() + batches.size()) + " parents; at most "
                    + io.readpast.core.Batches.MAX_PARENTS + ". Put many parents in a batch and depend on the batch.");
        }
        return new io.readpast.store.JobLinks(null, jobs, batches, run);
    }

    /** Ids given as strings of digits, as the API writes every id; duplicates count once. */
    static List<Long> ids(String field, List<JsonNode> nodes) {
        if (nodes == null) {
            return List.of();
        }
        java.util.LinkedHashSet<Long> out = new java.util.LinkedHashSet<>();
        for (JsonNode n : nodes) {
            String text = n != null && n.isTextual() ? n.asText() : "";
            long id;
            try {
                id = Long.parseLong(text);
            } catch (NumberFormatException e) {
                id = 0;
            }
            if (id <= 0 || !text.matches("[0-9]{1,19}")) {
                throw BrokerException.invalid("'" + field + "' holds ids: strings of digits, as the API writes them "
                        + "(\"41\", not 41); got "
                        + Validate.printable(n == null ? "null" : n.toString()) + ".");
            }
            out.add(id);
        }
        return List.copyOf(out);
    }

    public String progressJson(Requests.Progress progress) {
        if (progress == null) {
            return null;
        }
        Validate.optionalRange("progress.percent", progress.percent(), 0, 100);
        if (progress.message() != null && progress.message().length() > 1000) {
            throw BrokerException.invalid("'progress.message' must be at most 1000 characters.");
        }
        if (progress.message() != null) {
            Validate.noControlCharacters("progress.message", progress.message());
        }
        return Json.write(progress);
    }

    public String jsonText(String field, JsonNode node) {
        return jsonText(field, node, config.limits().payloadMaxBytes());
    }

    /**
     * A JSON value as the text to store and hand back: numbers exactly as read (BigDecimal with
     * its scale, BigInteger; see {@link JacksonConfig}), every string storable, at most {@code max}
     * bytes.
     */
    public static String jsonText(String field, JsonNode node, int max) {
        Validate.storableJson(field, node);
        String text = node.toString();
        if (text.length() > max || utf8Length(text) > max) {
            throw BrokerException.invalid("'" + field + "' is larger than " + max + " bytes of JSON.");
        }
        return text;
    }

    /** The length of {@code text} in UTF-8, counted without encoding it (a lone surrogate counts as '?', one byte). */
    static int utf8Length(String text) {
        int bytes = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
