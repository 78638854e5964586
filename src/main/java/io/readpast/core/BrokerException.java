package io.readpast.core;

/** A request the broker refuses; the API turns the kind into an HTTP status. */
public class BrokerException extends RuntimeException {

    public enum Kind {
        /** 400: the request is malformed or out of range. */
        INVALID,
        /** 404: no such job or queue. */
        NOT_FOUND,
        /** 409: the caller does not hold the lease (wrong, stale or released lease id). */
        LEASE_CONFLICT,
        /** 409: the job is not in a state that allows the operation. */
        STATE_CONFLICT,
        /** 403: the caller's key may not use this queue. */
        FORBIDDEN
    }

    private final Kind kind;

    public BrokerException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    public static BrokerException invalid(String message) {
        return new BrokerException(Kind.INVALID, message);
    }

    public static BrokerException forbiddenQueue(String queue) {
        return new BrokerException(Kind.FORBIDDEN, "This API key may not use queue '" + queue + "'.");
    }

    public static BrokerException jobNotFound(long id) {
        return new BrokerException(Kind.NOT_FOUND, "No job with id " + id + ".");
    }

    public static BrokerException leaseConflict(long id) {
        return new BrokerException(Kind.LEASE_CONFLICT, "Job " + id
                + " is not leased with this leaseId: the lease expired and the job was re-leased, "
                + "was released, or the job already finished.");
    }
}
