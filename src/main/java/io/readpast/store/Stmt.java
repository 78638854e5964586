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
    JOB_HEARTBEAT_MANY,
    JOB_COMPLETE,
    JOB_RETRY,
    JOB_RETRY_MANY,
    JOB_KILL,
    JOB_RELEASE,
    JOB_RELEASE_MANY,
    JOB_LIST_EXPIRED,
    JOB_GET_BY_KEY,
    JOB_COMPLETE_MANY,
    JOB_COMPLETE_ROWS,
    JOB_ACK_CLAIM,
    JOB_CANCEL_PENDING,
    JOB_CANCEL_REQUEST,
    JOB_CANCEL_LEASED,
    JOB_REQUEUE,
    JOB_EDIT,
    JOB_PURGE,
    JOB_LIST,
    JOB_LIST_DEAD,
    JOB_THROUGHPUT,
    ARCHIVE_PURGE_OLD,
    DEAD_PURGE_OLD,
    BATCH_PURGE_OLD,
    QUEUE_UPSERT,
    QUEUE_GET,
    QUEUE_LIST,
    QUEUE_SET_PAUSED,
    QUEUE_FIND,
    QUEUE_DELETE_CHECK,
    QUEUE_DELETE,
    QUEUE_PURGE_FINISHED,
    JOB_ANY_DUE,
    API_KEY_LIST,
    API_KEY_INSERT,
    API_KEY_DELETE,
    // recurring schedules
    DB_NOW,
    SCHEDULE_UPSERT,
    SCHEDULE_GET,
    SCHEDULE_LIST,
    SCHEDULE_DELETE,
    SCHEDULE_SET_PAUSED,
    SCHEDULE_LIST_DUE,
    SCHEDULE_LOCK_DUE,
    SCHEDULE_FIRE_INSERT,
    SCHEDULE_FIRE_SET_JOB,
    SCHEDULE_ADVANCE,
    FEATURE_NEXT_TIMES,
    // completion webhooks (the outbox)
    WEBHOOK_CLAIM,
    WEBHOOK_DELIVERED,
    WEBHOOK_FAILED,
    WEBHOOK_LIST,
    WEBHOOK_GET,
    WEBHOOK_RETRY,
    // expiresAt and uniqueFor
    JOB_EXPIRE_PENDING,
    UNIQUE_KEY_CLAIM,
    UNIQUE_KEY_GET,
    UNIQUE_KEY_SET_JOB,
    HOUSEKEEPING_PURGE,
    // rate limits and ordered groups
    QUEUE_RATE_COUNT,
    JOB_GROUP_LOCK,
    // queue scope of lease calls
    JOB_QUEUES,
    // the SQL enqueue: the broker's settings its rules read, and the uniqueness digest both paths share
    SETTING_PUT,
    UNIQUE_KEY_DIGEST,
    // fair queues: the key '' for keyless pending jobs, and the fair claim
    JOB_FAIR_KEYS,
    JOB_CLAIM_FAIR,
    QUEUE_KEYS,
    // batches and dependencies (docs/batches.md)
    BATCH_INSERT,
    BATCH_LOCK,
    BATCH_UPDATE,
    BATCH_GET,
    BATCH_LIST,
    BATCH_LOCK_PARENTS,
    BATCH_WEBHOOK_INSERT,
    JOB_LINK,
    JOB_DEP_LOCK_PARENTS,
    JOB_DEP_FINISHED_PARENTS,
    JOB_DEP_INSERT,
    JOB_DEP_PARENTS_OF,
    JOB_DEP_SETTLE,
    JOB_CANCEL_MANY,
    JOB_BATCH_UNHELD,
    JOB_CANCEL_REQUEST_BATCH,
    JOB_DEP_EDGES;

    public String fileName() {
        return name().toLowerCase(Locale.ROOT) + ".sql";
    }
}
