package io.readpast.core;

/**
 * Job states with their stored codes. PENDING, LEASED and PROCESSING live in the hot table;
 * SUCCEEDED and CANCELLED in the archive; DEAD in the dead-letter table.
 *
 * <pre>
 * PENDING --claim--> LEASED --heartbeat--> PROCESSING
 * LEASED|PROCESSING --complete--> SUCCEEDED
 * LEASED|PROCESSING --fail/lease expiry, attempts left--> PENDING (later due time)
 * LEASED|PROCESSING --fail/lease expiry, none left, or fatal--> DEAD
 * LEASED|PROCESSING --release--> PENDING (attempt given back)
 * </pre>
 */
public enum JobStatus {
    PENDING(0),
    LEASED(1),
    PROCESSING(2),
    SUCCEEDED(3),
    DEAD(4),
    CANCELLED(5);

    private final int code;

    JobStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public boolean terminal() {
        return code >= 3;
    }

    /** True for the states in which a worker holds a lease. */
    public boolean leased() {
        return this == LEASED || this == PROCESSING;
    }

    public static JobStatus fromCode(int code) {
        for (JobStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("Unknown status code " + code);
    }
}
