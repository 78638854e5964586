package io.readpast.store;

/**
 * The store refused a batch or dependency change, and did nothing: the ids it names are
 * unknown, a parent has already failed under the cancel policy, the edge would close a cycle,
 * or the batch is not open.
 */
public class LinkRefused extends RuntimeException {

    public enum Kind {
        /** A job or batch id that exists nowhere (400). */
        UNKNOWN,
        /** The dependency would make a job wait for itself (400). */
        CYCLE,
        /** The batch is closed, or a parent already ended DEAD or CANCELLED (409). */
        CONFLICT,
        /** The batch does not exist (404). */
        NOT_FOUND
    }

    private final Kind kind;

    public LinkRefused(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
