package io.readpast.core;

import io.readpast.store.JobRow;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Job states, their stored codes and the transitions between them, all in one place. PENDING,
 * LEASED and PROCESSING live in the hot table; SUCCEEDED and CANCELLED in the archive; DEAD in
 * the dead-letter table. Each transition is one guarded SQL statement (its WHERE clause names
 * the states it leaves); {@link #canBecome} is what the broker consults to explain a refusal.
 *
 * <pre>
 * PENDING    --claim-->                              LEASED
 * PENDING    --cancel-->                             CANCELLED
 * LEASED     --heartbeat-->                          PROCESSING
 * LEASED|PROCESSING --complete-->                    SUCCEEDED
 * LEASED|PROCESSING --fail/lease expiry, attempts left--> PENDING (later due time)
 * LEASED|PROCESSING --fail/lease expiry, none left, or fatal--> DEAD
 * LEASED|PROCESSING --release-->                     PENDING (attempt given back)
 * LEASED|PROCESSING --fail/release/expiry after a cancel request--> CANCELLED
 * DEAD|CANCELLED     --requeue-->                    PENDING (attempts reset)
 * WAITING    --last parent settled-->                PENDING
 * WAITING    --cancel, or a parent DEAD/CANCELLED under the cancel policy--> CANCELLED
 * </pre>
 * A job enqueued with parents (dependsOn) starts WAITING, in the hot table but outside every
 * claim index, until its last parent settles (docs/batches.md).
 * A PENDING job whose due time is still ahead (a delayed enqueue, a retry backing off) is
 * stored with its own code, {@link #SCHEDULED_CODE}, so that it stays out of the claim index
 * until a claim promotes it to {@code 0} once it is due. It is PENDING all the same: the API
 * shows it so, and every statement that takes a PENDING job takes both codes.
 */
public enum JobStatus {
    PENDING(0),
    LEASED(1),
    PROCESSING(2),
    SUCCEEDED(3),
    DEAD(4),
    CANCELLED(5),
    WAITING(7);

    private static final Map<JobStatus, Set<JobStatus>> NEXT = new EnumMap<>(JobStatus.class);

    static {
        NEXT.put(PENDING, EnumSet.of(LEASED, CANCELLED));
        NEXT.put(LEASED, EnumSet.of(PROCESSING, SUCCEEDED, PENDING, DEAD, CANCELLED));
        NEXT.put(PROCESSING, EnumSet.of(SUCCEEDED, PENDING, DEAD, CANCELLED));
        NEXT.put(SUCCEEDED, EnumSet.noneOf(JobStatus.class));
        NEXT.put(DEAD, EnumSet.of(PENDING));
        NEXT.put(CANCELLED, EnumSet.of(PENDING));
        NEXT.put(WAITING, EnumSet.of(PENDING, CANCELLED));
    }

    /** The stored code of a PENDING job that is not due yet (see the class comment). */
    public static final int SCHEDULED_CODE = 6;

    private final int code;

    JobStatus(int code) {
        this.code = code;
    }

    /** The code stored in the status column. */
    public int code() {
        return code;
    }

    /** Every code a job of this state may be stored with (PENDING: due, and not due yet). */
    public Set<Integer> storedCodes() {
        return this == PENDING ? Set.of(code, SCHEDULED_CODE) : Set.of(code);
    }

    /** The states a job starts in: PENDING, or WAITING when it names parents (dependsOn). */
    public static Set<JobStatus> initial() {
        return EnumSet.of(PENDING, WAITING);
    }

    /** The states this one may change into (not itself). */
    public Set<JobStatus> next() {
        return Set.copyOf(NEXT.get(this));
    }

    public boolean canBecome(JobStatus next) {
        return NEXT.get(this).contains(next);
    }

    /** Finished: moved out of the hot table (SUCCEEDED, DEAD, CANCELLED). */
    public boolean terminal() {
        return this == SUCCEEDED || this == DEAD || this == CANCELLED;
    }

    public static JobStatus of(JobRow job) {
        return fromCode(job.status());
    }

    public static JobStatus fromCode(int code) {
        if (code == SCHEDULED_CODE) {
            return PENDING;
        }
        for (JobStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("Unknown status code " + code);
    }
}
