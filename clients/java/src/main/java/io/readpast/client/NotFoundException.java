package io.readpast.client;

import java.time.Duration;
import java.util.Map;

/** 404: no such job, queue or batch. */
public class NotFoundException extends ReadpastException {
    private static final long serialVersionUID = 1L;

    public NotFoundException(int status, String detail, Map<String, Object> problem, Duration retryAfter, String requestId) {
        super(status, detail, problem, retryAfter, requestId, null);
    }
}
