package io.readpast.client;

import java.time.Duration;
import java.util.Map;

/** 403: the key lacks the role, or the queue is outside its scope. */
public class ForbiddenException extends ReadpastException {
    private static final long serialVersionUID = 1L;

    public ForbiddenException(int status, String detail, Map<String, Object> problem, Duration retryAfter, String requestId) {
        super(status, detail, problem, retryAfter, requestId, null);
    }
}
