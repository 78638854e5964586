package io.readpast.store;

import java.util.Locale;

/**
 * Every statement the store runs. Each has one file per engine,
 * {@code sql/<engine>/<file name>.sql}; start-up checks that the active engine has all of them
 * (and a test checks both engines).
 */
public enum Stmt {
    JOB_INSERT,
    JOB_INSERT_MANY,
    JOB_GET,
    QUEUE_LOCK_CAPPED,
    QUEUE_LIST_CAPPED,
    JOB_CLAIM,
    JOB_HEARTBEAT,
    JOB_COMPLETE,
    JOB_RETRY,
    JOB_KILL,
    JOB_RELEASE,
    JOB_LIST_EXPIRED,
    JOB_GET_BY_KEY,
    JOB_COMPLETE_MANY,
    JOB_ACK_CLAIM,
    JOB_CANCEL_PENDING,
    JOB_CANCEL_REQUEST,
    JOB_CANCEL_LEASED,
    JOB_REQUEUE,
    JOB_PURGE,
    JOB_LIST,
    JOB_LIST_DEAD,
    JOB_THROUGHPUT,
    ARCHIVE_PURGE_OLD,
    DEAD_PURGE_OLD,
    QUEUE_UPSERT,
    QUEUE_GET,
    QUEUE_LIST,
    QUEUE_SET_PAUSED,
    QUEUE_FIND,
    JOB_ANY_DUE,
    API_KEY_LIST,
    API_KEY_INSERT,
    API_KEY_DELETE;

    public String fileName() {
        return name().toLowerCase(Locale.ROOT) + ".sql";
    }
}
