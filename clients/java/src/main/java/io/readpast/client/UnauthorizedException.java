package io.readpast.client;

import java.time.Duration;
import java.util.Map;

/** 401: no API key, or one the broker does not know. */
public class UnauthorizedException extends ReadpastException {
    private static final long serialVersionUID = 1L;

    public UnauthorizedException(int status, String detail, Map<String, Object> problem, Duration retryAfter, String requestId) {
        super(status, detail, problem, retryAfter, requestId, null);
    }
}
