package io.readpast.client;

import java.time.Duration;
import java.util.Map;

/** 409: the lease is not held, or the job's state does not allow the call. */
public class ConflictException extends ReadpastException {
    private static final long serialVersionUID = 1L;

    public ConflictException(int status, String detail, Map<String, Object> problem, Duration retryAfter, String requestId) {
        super(status, detail, problem, retryAfter, requestId, null);
    }
}
