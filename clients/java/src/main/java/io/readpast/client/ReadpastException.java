package io.readpast.client;

import java.time.Duration;
import java.util.Map;

/**
 * A refused request (an RFC 9457 problem document) or, with status 0, a broker that could not be
 * reached. Subclasses by status: {@link InvalidRequestException} (400),
 * {@link UnauthorizedException} (401), {@link ForbiddenException} (403),
 * {@link NotFoundException} (404), {@link ConflictException} (409),
 * {@link UnavailableException} (5xx) and {@link ConnectionException} (no answer).
 */
public class ReadpastException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String type;
    private final String title;
    private final String detail;
    private final String instance;
    private final Duration retryAfter;
    private final String requestId;

    public ReadpastException(int status, String detail, Map<String, Object> problem, Duration retryAfter, String requestId,
                             Throwable cause) {
        super(status == 0 ? detail : "HTTP " + status + ": " + detail, cause);
        this.status = status;
        this.detail = detail;
        this.type = problem == null ? null : (String) problem.get("type");
        this.title = problem == null ? null : (String) problem.get("title");
        this.instance = problem == null ? null : (String) problem.get("instance");
        this.retryAfter = retryAfter;
        this.requestId = requestId;
    }

    /** The HTTP status; 0 when no answer came. */
    public int status() {
        return status;
    }

    /** The problem type, e.g. {@code urn:readpast:problem:lease-conflict}. */
    public String type() {
        return type;
    }

    public String title() {
        return title;
    }

    /** What went wrong, naming the field at fault. */
    public String detail() {
        return detail;
    }

    public String instance() {
        return instance;
    }

    /** From Retry-After (503), or null. */
    public Duration retryAfter() {
        return retryAfter;
    }

    public String requestId() {
        return requestId;
    }

    /** Whether trying again later may help: no answer, 429 or 5xx. */
    public boolean isTemporary() {
        return status == 0 || status == 429 || status >= 500;
    }

    /** The exception for a non-2xx answer (or a per-item error of a batch answer). */
    @SuppressWarnings("unchecked")
    public static ReadpastException of(int status, Object problem, String raw, Duration retryAfter, String requestId) {
        Map<String, Object> p = problem instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        Object d = p.get("detail") != null ? p.get("detail") : p.get("title");
        String detail = d != null ? d.toString() : raw != null && !raw.isBlank() ? raw : "HTTP " + status;
        return switch (status) {
            case 400 -> new InvalidRequestException(status, detail, p, retryAfter, requestId);
            case 401 -> new UnauthorizedException(status, detail, p, retryAfter, requestId);
            case 403 -> new ForbiddenException(status, detail, p, retryAfter, requestId);
            case 404 -> new NotFoundException(status, detail, p, retryAfter, requestId);
            case 409 -> new ConflictException(status, detail, p, retryAfter, requestId);
            default -> status >= 500 ? new UnavailableException(status, detail, p, retryAfter, requestId)
                    : new ReadpastException(status, detail, p, retryAfter, requestId, null);
        };
    }
}
