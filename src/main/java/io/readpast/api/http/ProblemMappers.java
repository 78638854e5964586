package io.readpast.api.http;

import io.readpast.http.Problem;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.readpast.core.BrokerException;
import io.readpast.store.StoreException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.stream.Collectors;

/**
 * Every error leaves as RFC 9457 problem+json: 4xx for what the client can fix, 503 with
 * Retry-After when the database is unavailable, and a bare 500 (no stack trace) otherwise.
 */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    @ServerExceptionMapper
    public Response broker(BrokerException e, UriInfo uri) {
        Problem p = problem(e);
        return Problem.response(p.status(), p.type(), p.title(), p.detail(), path(uri));
    }

    public static int status(BrokerException e) {
        return switch (e.kind()) {
            case INVALID -> 400;
            case NOT_FOUND -> 404;
            case LEASE_CONFLICT, STATE_CONFLICT -> 409;
            case FORBIDDEN -> 403;
        };
    }

    /** The problem document for a refused request (also used per item in batch answers). */
    public static Problem problem(BrokerException e) {
        String slug = switch (e.kind()) {
            case INVALID -> "invalid-request";
            case NOT_FOUND -> "not-found";
            case LEASE_CONFLICT -> "lease-conflict";
            case STATE_CONFLICT -> "state-conflict";
            case FORBIDDEN -> "forbidden";
        };
        String title = switch (e.kind()) {
            case INVALID -> "Invalid request";
            case NOT_FOUND -> "Not found";
            case LEASE_CONFLICT -> "Lease not held";
            case STATE_CONFLICT -> "Conflict";
            case FORBIDDEN -> "Forbidden";
        };
        return new Problem("urn:readpast:problem:" + slug, title, status(e), e.getMessage(), null);
    }

    @ServerExceptionMapper
    public Response store(StoreException e, UriInfo uri) {
        if (e.kind() == StoreException.Kind.UNAVAILABLE || e.kind() == StoreException.Kind.TRANSIENT) {
            LOG.warnf("Database unavailable for %s: %s", path(uri), e.getMessage());
            Response r = Problem.response(503, "database-unavailable", "Service unavailable",
                    "The database cannot take this right now (" + e.refusal() + "); nothing was done, retry shortly.",
                    path(uri));
            return Response.fromResponse(r).header("Retry-After", "2").build();
        }
        if (e.kind() == StoreException.Kind.REFUSED) {
            LOG.errorf("The database refused %s: %s", path(uri), e.getMessage());
            Response r = Problem.response(503, "database-refused", "Service unavailable",
                    "The database refused this (" + e.refusal() + "); nothing was done. An operator must fix the "
                            + "database login's privileges; retry afterwards.", path(uri));
            return Response.fromResponse(r).header("Retry-After", "30").build();
        }
        LOG.errorf(e, "Database error for %s", path(uri));
        return Problem.response(500, null, "Internal Server Error", "The broker failed; see its log.", path(uri));
    }

    @ServerExceptionMapper
    public Response json(JsonProcessingException e, UriInfo uri) {
        return Problem.response(400, "malformed-json", "Malformed request body", describe(e), path(uri));
    }

    /** More specific than the JSON mapper above, so it wins over Quarkus' built-in bare 400. */
    @ServerExceptionMapper
    public Response mismatched(MismatchedInputException e, UriInfo uri) {
        return json(e, uri);
    }

    @ServerExceptionMapper
    public Response mapping(JsonMappingException e, UriInfo uri) {
        return json(e, uri);
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, UriInfo uri) {
        Throwable cause = e.getCause();
        if (cause instanceof JsonProcessingException jpe) {
            return json(jpe, uri);
        }
        int status = e.getResponse() == null ? 500 : e.getResponse().getStatus();
        Response.StatusType st = Response.Status.fromStatusCode(status);
        String title = st == null ? "HTTP " + status : st.getReasonPhrase();
        String detail = switch (status) {
            case 400 -> "The request body could not be read as JSON of the expected shape.";
            case 404 -> "No such resource: " + path(uri);
            case 405 -> "This method is not allowed on " + path(uri) + ".";
            case 406 -> "This resource produces application/json.";
            case 415 -> "Send the body as application/json.";
            default -> e.getMessage();
        };
        // 415 and 406 have types of their own: the fix (send, accept application/json) is the same whatever the path
        String type = switch (status) {
            case 415 -> "unsupported-media-type";
            case 406 -> "not-acceptable";
            default -> null;
        };
        Response r = Problem.response(status, type, title, detail, path(uri));
        if (e.getResponse() != null && e.getResponse().getHeaderString("Allow") != null) {
            r = Response.fromResponse(r).header("Allow", e.getResponse().getHeaderString("Allow")).build();
        }
        return r;
    }

    @ServerExceptionMapper
    public Response other(Throwable e, UriInfo uri) {
        if (clientGone(e)) {
            // the client closed the connection (or broke the framing, which closes it) before its
            // whole body arrived: nobody is there to answer, and nothing failed here
            LOG.debugf("The request body of %s could not be read (the client went away or broke the framing): %s",
                    path(uri), e.getMessage());
            return Problem.response(400, "incomplete-request", "Bad Request",
                    "The request body could not be read: the connection closed before it arrived whole, or its "
                            + "framing was malformed.", path(uri));
        }
        LOG.errorf(e, "Unexpected failure for %s", path(uri));
        return Problem.response(500, null, "Internal Server Error", "The broker failed; see its log.", path(uri));
    }

    /**
     * True when the request body could not be read: the connection closed under it, or its
     * framing broke (a malformed chunk size), which closes it. Nothing in the broker itself
     * raises an IOException into a resource (database failures are StoreExceptions).
     */
    static boolean clientGone(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof io.vertx.core.http.HttpClosedException || t instanceof java.io.IOException
                    || t instanceof io.netty.handler.codec.DecoderException) {
                return true;
            }
        }
        return false;
    }

    private static String path(UriInfo uri) {
        return uri == null ? null : "/" + uri.getPath().replaceFirst("^/", "");
    }

    public static String describe(JsonProcessingException e) {
        // a reader limit or a number too large for its field may come wrapped by the mapper, which
        // then knows the field's path
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c instanceof com.fasterxml.jackson.core.exc.InputCoercionException ic) {
                return outOfRange(ic, fieldPath(e, ic));
            }
            if (c instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException sc) {
                return constraint(sc, fieldPath(e, sc));
            }
        }
        String where = "";
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            where = m.getPath().stream()
                    .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                    .collect(Collectors.joining(".")).replace(".[", "[");
        }
        if (e instanceof JacksonConfig.UnstorableText u) {
            return "Field '" + where + "' cannot be stored as given: it holds " + u.why()
                    + "; send strings as valid UTF-16 (surrogates in pairs).";
        }
        if (e instanceof UnrecognizedPropertyException u) {
            return "Unknown field '" + u.getPropertyName() + "'" + (where.contains(".") ? " at '" + where + "'" : "") + ".";
        }
        if (e instanceof InvalidFormatException f) {
            return "Field '" + where + "' has the wrong type: expected "
                    + simpleType(f.getTargetType()) + ", got " + Validate.printable(given(f), 60) + ".";
        }
        if (e instanceof MismatchedInputException m) {
            return where.isEmpty()
                    ? "The body must be a JSON object of the expected shape."
                    : "Field '" + where + "' has the wrong type: expected " + simpleType(m.getTargetType()) + ".";
        }
        if (e instanceof com.fasterxml.jackson.core.exc.InputCoercionException c) {
            return outOfRange(c, streamPath(e));
        }
        if (e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException) {
            return constraint(e, streamPath(e));
        }
        if (e instanceof JsonParseException) {
            var loc = e.getLocation();
            String at = loc == null || loc.getLineNr() < 0 ? "" : " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
            return "Malformed JSON" + at + ": " + parseProblem(String.valueOf(e.getOriginalMessage()));
        }
        return "The request body is not valid JSON.";
    }

    /**
     * What is wrong with the JSON text, in the request's terms: Jackson's own message up to its
     * first line, without the parser's setting names (which are no business of the client's).
     * A message that still names something of the library is replaced by a plain one.
     */
    static String parseProblem(String message) {
        String msg = message;
        int cut = msg.indexOf('\n');
        msg = cut < 0 ? msg : msg.substring(0, cut);
        msg = msg.replaceAll("\\s*\\(start marker at .*$", "")
                .replaceAll("\\s*\\(code \\d+\\)", "")
                .replaceAll(":?\\s*enable `[^`]*` to allow", " (not JSON)")
                .replaceAll("maybe a \\(non-standard\\) comment\\? \\(not recognized as one since [^)]*\\)",
                        "JSON has no comments")
                .replaceAll("\\s*\\([^()]*(Feature|feature)[^()]*\\)", "");
        if (msg.matches("(?s).*(Feature|feature|`|jackson|Jackson|java\\.|com\\.|Exception|Constraints|\\(\\)).*")) {
            return "this is not valid JSON.";
        }
        return Validate.printable(msg, 200);
    }

    /** Valid JSON, a number too large for its field: the field and its range. */
    private static String outOfRange(com.fasterxml.jackson.core.exc.InputCoercionException c, String at) {
        boolean isLong = c.getTargetType() == Long.TYPE || c.getTargetType() == Long.class;
        return (at.isEmpty() ? "A number" : "Field '" + at + "'") + " is out of range: it must be an integer between "
                + (isLong ? Long.MIN_VALUE + " and " + Long.MAX_VALUE : Integer.MIN_VALUE + " and " + Integer.MAX_VALUE)
                + numberGiven(c) + ".";
    }

    /** The inner exception's place in the stream, else the mapper's path (cut as streamPath cuts it). */
    private static String fieldPath(JsonProcessingException outer, JsonProcessingException inner) {
        String at = streamPath(inner);
        if (!at.isEmpty() || !(outer instanceof JsonMappingException m)) {
            return at;
        }
        // the item of a batch (jobs[0]) or the field: the mapper does not follow a value read as
        // a tree (a payload) into its own nesting
        StringBuilder path = new StringBuilder();
        int segments = 0;
        for (JsonMappingException.Reference r : m.getPath()) {
            if (segments == 3) {
                break;
            }
            if (r.getFieldName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(Validate.printable(r.getFieldName(), 40));
            } else if (!path.isEmpty()) {
                path.append('[').append(Math.max(0, r.getIndex())).append(']');
            }
            segments++;
        }
        return path.toString();
    }

    /** A limit of the JSON reader (nesting depth, number or string length) that the body went past. */
    private static String constraint(JsonProcessingException e, String at) {
        String msg = String.valueOf(e.getOriginalMessage());
        String field = at.isEmpty() ? "The request body" : "Field '" + at + "'";
        var constraints = e.getProcessor() instanceof com.fasterxml.jackson.core.JsonParser p
                ? p.streamReadConstraints() : com.fasterxml.jackson.core.StreamReadConstraints.defaults();
        if (msg.contains("nesting depth")) {
            return field + " nests arrays and objects deeper than " + constraints.getMaxNestingDepth()
                    + " levels, the limit.";
        }
        if (msg.startsWith("Number value length")) {
            return field + " holds a number longer than " + constraints.getMaxNumberLength() + " digits, the limit.";
        }
        if (msg.startsWith("String value length")) {
            return field + " holds a string longer than " + constraints.getMaxStringLength() + " characters, the limit.";
        }
        if (msg.startsWith("Name length")) {
            return field + " holds a member name longer than " + constraints.getMaxNameLength() + " characters, the limit.";
        }
        return field + " is larger than the JSON reader takes.";
    }

    /** The value as the request wrote it: a number's own text (1e400, not the Infinity Jackson made of it). */
    private static String given(InvalidFormatException f) {
        if (f.getValue() instanceof Number && f.getProcessor() instanceof com.fasterxml.jackson.core.JsonParser p) {
            try {
                String text = p.getText();
                if (text != null) {
                    return text;
                }
            } catch (java.io.IOException | RuntimeException ignored) {
                // fall back to the value itself
            }
        }
        if (f.getValue() instanceof Double || f.getValue() instanceof Float) {
            return "a number with a fraction or an exponent";
        }
        return String.valueOf(f.getValue());
    }

    /** " (got N)" with the number given, when the reader says it. */
    private static String numberGiven(com.fasterxml.jackson.core.exc.InputCoercionException c) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^Numeric value \\(([-+0-9.eE]{1,60})\\)")
                .matcher(String.valueOf(c.getOriginalMessage()));
        return m.find() ? " (got " + m.group(1) + ")" : "";
    }

    /**
     * Where the parser stood when it gave up, as a field path ("jobs[0].payload"): the members
     * and indexes from the top, cut after the third (a value 3,000 arrays deep is named by its
     * field, not by 3,000 indexes), ending at a member name.
     */
    static String streamPath(JsonProcessingException e) {
        if (!(e.getProcessor() instanceof com.fasterxml.jackson.core.JsonParser p)) {
            return "";
        }
        java.util.ArrayDeque<com.fasterxml.jackson.core.JsonStreamContext> chain = new java.util.ArrayDeque<>();
        for (var ctx = p.getParsingContext(); ctx != null; ctx = ctx.getParent()) {
            chain.push(ctx);
        }
        StringBuilder path = new StringBuilder();
        int named = 0;
        int segments = 0;
        String lastNamed = "";
        for (var ctx : chain) {
            if (segments == 3) {
                break;
            }
            if (ctx.inObject() && ctx.getCurrentName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(Validate.printable(ctx.getCurrentName(), 40));
                named++;
                segments++;
                lastNamed = path.toString();
            } else if (ctx.inArray() && !path.isEmpty()) {
                path.append('[').append(Math.max(0, ctx.getCurrentIndex())).append(']');
                segments++;
            }
        }
        return named == 0 ? "" : lastNamed;
    }

    private static String simpleType(Class<?> c) {
        if (c == null) {
            return "another type";
        }
        if (c == Integer.class || c == int.class || c == Long.class || c == long.class) {
            return "an integer";
        }
        if (c == Boolean.class || c == boolean.class) {
            return "true or false";
        }
        if (c == String.class) {
            return "a string";
        }
        if (java.util.Collection.class.isAssignableFrom(c)) {
            return "an array";
        }
        return "an object";
    }
}
