package io.readpast.client;

import java.time.Duration;
import java.util.Map;

/** 503 (and other 5xx): the broker or its database is unavailable; see retryAfter(). */
public class UnavailableException extends ReadpastException {
    private static final long serialVersionUID = 1L;

    public UnavailableException(int status, String detail, Map<String, Object> problem, Duration retryAfter, String requestId) {
        super(status, detail, problem, retryAfter, requestId, null);
    }
}
