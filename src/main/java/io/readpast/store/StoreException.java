package io.readpast.store;

/** A database failure, classified so the layers above can answer it properly. */
public class StoreException extends RuntimeException {

    public enum Kind {
        /** Deadlock victim or serialization failure: the unit can be retried. */
        TRANSIENT,
        /** The database cannot be reached or the pool is exhausted: answer 503. */
        UNAVAILABLE,
        /** A unique index refused the row. */
        DUPLICATE_KEY,
        /** Anything else: a bug or a broken database. */
        OTHER
    }

    private final Kind kind;

    public StoreException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
