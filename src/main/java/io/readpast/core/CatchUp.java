package io.readpast.core;

/** What a schedule does with slots it missed (paused broker, outage) by more than the misfire grace. */
public enum CatchUp {
    /** Fires every missed slot (at most readpast.schedules.catch-up-max per pass). */
    ALL,
    /** Fires only the most recent missed slot. */
    LATEST,
    /** Fires none of them. */
    NONE;

    /** The stored name; an unknown one (not written by this version) reads as the default. */
    static CatchUp of(String stored) {
        return "ALL".equals(stored) ? ALL : "NONE".equals(stored) ? NONE : LATEST;
    }
}
