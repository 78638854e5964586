package io.readpast.core;

/**
 * What core reports about jobs, after the change committed: counts per queue and claim timings.
 * ops implements it as metrics; core does not know how they are kept.
 */
public interface JobEvents {

    /**
     * What happened to jobs. A job that fails is counted once by where it went: FAILED when it
     * goes back for another attempt, DEAD or CANCELLED when the failure ended it; an expired
     * lease counts EXPIRED as well.
     */
    enum Event {
        ENQUEUED("Jobs created by enqueues (an idempotent repeat creates none)"),
        CLAIMED("Jobs leased by claims"),
        COMPLETED("Jobs that SUCCEEDED"),
        FAILED("Failures reported by workers that sent the job back for another attempt (a failure that ends "
                + "the job counts in readpast_jobs_dead_total or readpast_jobs_cancelled_total instead)"),
        DEAD("Jobs that became DEAD: attempts used up or a non-retryable failure, reported or by lease expiry"),
        EXPIRED("Leases that expired: the job went back for another attempt, or became DEAD or CANCELLED "
                + "(counted there too)"),
        CANCELLED("Jobs that became CANCELLED"),
        RELEASED("Jobs given back unworked by their worker (no attempt spent)");

        private final String description;

        Event(String description) {
            this.description = description;
        }

        public String description() {
            return description;
        }
    }

    /** {@code n} jobs of {@code queue} had {@code event}. */
    void count(Event event, String queue, int n);

    /** One claim statement took {@code nanos} and leased {@code jobs} jobs. */
    void claimed(long nanos, int jobs);
}
