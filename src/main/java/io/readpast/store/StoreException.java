package io.readpast.store;

/** A database failure, classified so the layers above can answer it properly. */
public class StoreException extends RuntimeException {

    public enum Kind {
        /** Deadlock victim or serialization failure: the unit can be retried. */
        TRANSIENT,
        /**
         * The database cannot take the work now: it cannot be reached, refuses connections, is
         * out of space or read-only, or the pool is exhausted. Answer 503 with Retry-After;
         * nothing was done.
         */
        UNAVAILABLE,
        /**
         * The database refused the work for a reason an operator must fix (the login lacks a
         * privilege): answer 503 with Retry-After and a detail that names the refusal; nothing
         * was done.
         */
        REFUSED,
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

    /** The database's own code for the failure: SQLSTATE, and SQL Server's error number; "no connection" when none. */
    public String refusal() {
        for (Throwable t = getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLException s) {
                String state = s.getSQLState() == null ? "" : "SQLSTATE " + s.getSQLState();
                String number = s.getErrorCode() != 0 ? "error " + s.getErrorCode() : "";
                String both = (state + (state.isEmpty() || number.isEmpty() ? "" : ", ") + number).strip();
                if (!both.isEmpty()) {
                    return both;
                }
            }
        }
        return "no connection";
    }
}
