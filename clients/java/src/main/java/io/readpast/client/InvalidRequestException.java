package io.readpast.client;

import java.time.Duration;
import java.util.Map;

/** 400: the body or a parameter was refused; the detail names the field. */
public class InvalidRequestException extends ReadpastException {
    private static final long serialVersionUID = 1L;

    public InvalidRequestException(int status, String detail, Map<String, Object> problem, Duration retryAfter, String requestId) {
        super(status, detail, problem, retryAfter, requestId, null);
    }
}
