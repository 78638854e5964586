package io.readpast.api.http;

import io.readpast.core.BrokerException;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;

/** Checks for the optional enqueue fields uniqueFor and expiresAt (kept out of JobResource). */
final class JobOptions {

    /** Longest uniqueness window: a year. */
    static final long UNIQUE_FOR_MAX_SECONDS = 366L * 24 * 3600;
    private static final Instant MIN = Instant.parse("1970-01-01T00:00:00Z");
    private static final Instant MAX = Instant.parse("9999-12-31T23:59:59Z");

    private JobOptions() {
    }

    static Long uniqueFor(Long seconds) {
        return Validate.optionalRange("uniqueFor", seconds, 1L, UNIQUE_FOR_MAX_SECONDS);
    }

    /** The instant, or null when absent; it must be after {@code runAt} when that is given. */
    static Instant expiresAt(String raw, Instant runAt) {
        if (raw == null) {
            return null;
        }
        Instant t;
        try {
            t = OffsetDateTime.parse(raw).toInstant();
        } catch (DateTimeException e) {
            throw BrokerException.invalid("'expiresAt' must be an ISO-8601 date-time with offset, "
                    + "e.g. 2030-01-01T12:00:00Z.");
        }
        if (t.isBefore(MIN) || t.isAfter(MAX)) {
            throw BrokerException.invalid("'expiresAt' must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.");
        }
        if (runAt != null && !t.isAfter(runAt)) {
            throw BrokerException.invalid("'expiresAt' must be after 'runAt': the job could never start.");
        }
        return t;
    }
}
