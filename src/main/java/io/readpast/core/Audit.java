package io.readpast.core;

/** How audit lines name the acting key. */
final class Audit {

    private Audit() {
    }

    /** The acting key's name; "anonymous" when authentication is off. */
    static String who(String by) {
        return by == null ? "anonymous" : by;
    }
}
