package io.readpast.store;

import java.util.Locale;

/**
 * Every statement the store runs. Each has one file per engine,
 * {@code sql/<engine>/<file name>.sql}; start-up checks that the active engine has all of them
 * (and a test checks both engines).
 */
public enum Stmt {
    JOB_INSERT,
    JOB_GET,
    QUEUE_LOCK_CAPPED,
    JOB_CLAIM,
    JOB_HEARTBEAT,
    JOB_COMPLETE,
    JOB_RETRY,
    JOB_KILL,
    JOB_RELEASE,
    JOB_LIST_EXPIRED,
    QUEUE_UPSERT,
    QUEUE_GET;

    public String fileName() {
        return name().toLowerCase(Locale.ROOT) + ".sql";
    }
}
