package io.readpast.api.http;

/**
 * OpenAPI example values and shared texts for schedules, webhooks and the other job-queue
 * features (kept apart from {@link ApiDocs} so that each part of the API reads on its own).
 * Nothing here affects behaviour.
 */
public final class FeatureDocs {

    private FeatureDocs() {
    }

    public static final String SCHEDULE_NAME_PARAM = "Schedule name: 1-100 characters: letters, digits and . _ : - "
            + "(starting with a letter or digit).";

    public static final String SCHEDULE_BODY = "{\"cron\": \"0 6 * * MON-FRI\", \"timeZone\": \"Europe/Paris\", "
            + "\"job\": {\"queue\": \"reports\", \"type\": \"daily-report\", \"payload\": {\"format\": \"pdf\"}, "
            + "\"tags\": [\"nightly\"], \"maxAttempts\": 3}, \"overlap\": \"SKIP\", \"catchUp\": \"LATEST\"}";

    public static final String SCHEDULE_BODY_SECONDS = "{\"cron\": \"*/10 * * * * *\", "
            + "\"job\": {\"queue\": \"health\", \"type\": \"ping\"}}";

    public static final String SCHEDULE_VIEW = "{\"name\": \"weekday-report\", \"cron\": \"0 6 * * MON-FRI\", "
            + "\"timeZone\": \"Europe/Paris\", \"job\": {\"queue\": \"reports\", \"type\": \"daily-report\", "
            + "\"payload\": {\"format\": \"pdf\"}, \"priority\": 0, \"tags\": [\"nightly\"], \"maxAttempts\": 3}, "
            + "\"overlap\": \"SKIP\", \"catchUp\": \"LATEST\", \"paused\": false, "
            + "\"nextFireAt\": \"2026-12-01T05:00:00Z\", \"upcoming\": [\"2026-12-01T05:00:00Z\", "
            + "\"2026-12-02T05:00:00Z\", \"2026-12-03T05:00:00Z\", \"2026-12-04T05:00:00Z\", "
            + "\"2026-12-07T05:00:00Z\"], \"lastFireAt\": \"2026-11-30T05:00:00Z\", \"lastJobId\": \"42\", "
            + "\"createdBy\": \"ops\", \"modifiedBy\": \"ops\", \"createdAt\": \"2026-11-01T09:00:00Z\", "
            + "\"updatedAt\": \"2026-11-01T09:00:00Z\"}";

    public static final String SCHEDULE_VIEW_PAUSED = "{\"name\": \"weekday-report\", \"cron\": \"0 6 * * MON-FRI\", "
            + "\"timeZone\": \"Europe/Paris\", \"job\": {\"queue\": \"reports\", \"type\": \"daily-report\", "
            + "\"payload\": {\"format\": \"pdf\"}, \"priority\": 0, \"tags\": [\"nightly\"], \"maxAttempts\": 3}, "
            + "\"overlap\": \"SKIP\", \"catchUp\": \"LATEST\", \"paused\": true, \"nextFireAt\": null, "
            + "\"upcoming\": [], \"lastFireAt\": \"2026-11-30T05:00:00Z\", \"lastJobId\": \"42\", "
            + "\"createdBy\": \"ops\", \"modifiedBy\": \"ops\", \"createdAt\": \"2026-11-01T09:00:00Z\", "
            + "\"updatedAt\": \"2026-11-30T12:00:00Z\"}";

    public static final String SCHEDULE_PAGE = "{\"schedules\": [" + SCHEDULE_VIEW + "], \"next\": null}";

    public static final String PROBLEM_SCHEDULE_NOT_FOUND = "{\"type\": \"urn:readpast:problem:not-found\", "
            + "\"title\": \"Not found\", \"status\": 404, \"detail\": \"No schedule named 'weekday-report'.\", "
            + "\"instance\": \"/schedules/weekday-report\"}";

    public static final String PROBLEM_BAD_CRON = "{\"type\": \"urn:readpast:problem:invalid-request\", "
            + "\"title\": \"Invalid request\", \"status\": 400, \"detail\": \"'cron' is not usable: the minute value "
            + "61 is outside 0-59.\", \"instance\": \"/schedules/weekday-report\"}";

    public static final String DELIVERY_ID_PARAM = "Delivery id: the UUID sent as Readpast-Delivery.";

    public static final String DELIVERY_DEAD = "{\"id\": \"6f1c2a4e-8b3d-4f5a-9c7e-0d1e2f3a4b5c\", \"jobId\": \"42\", "
            + "\"queue\": \"emails\", \"event\": \"job.succeeded\", "
            + "\"url\": \"https://shop.example/hooks/readpast\", \"status\": \"DEAD\", \"attempt\": 10, "
            + "\"nextAttemptAt\": null, \"lastStatus\": 503, \"lastError\": \"HTTP 503\", "
            + "\"createdAt\": \"2026-11-30T12:00:09Z\", \"updatedAt\": \"2026-11-30T14:31:12Z\", "
            + "\"deliveredAt\": null}";

    public static final String DELIVERY_PENDING = "{\"id\": \"6f1c2a4e-8b3d-4f5a-9c7e-0d1e2f3a4b5c\", \"jobId\": \"42\", "
            + "\"queue\": \"emails\", \"event\": \"job.succeeded\", "
            + "\"url\": \"https://shop.example/hooks/readpast\", \"status\": \"PENDING\", \"attempt\": 0, "
            + "\"nextAttemptAt\": \"2026-11-30T15:00:00Z\", \"lastStatus\": 503, \"lastError\": \"HTTP 503\", "
            + "\"createdAt\": \"2026-11-30T12:00:09Z\", \"updatedAt\": \"2026-11-30T15:00:00Z\", "
            + "\"deliveredAt\": null}";

    public static final String DELIVERY_PAGE = "{\"deliveries\": [" + DELIVERY_DEAD + "], \"next\": \"1234\"}";

    public static final String PROBLEM_DELIVERY_NOT_FOUND = "{\"type\": \"urn:readpast:problem:not-found\", "
            + "\"title\": \"Not found\", \"status\": 404, "
            + "\"detail\": \"No webhook delivery with id '6f1c2a4e-8b3d-4f5a-9c7e-0d1e2f3a4b5c'.\", "
            + "\"instance\": \"/webhooks/deliveries/6f1c2a4e-8b3d-4f5a-9c7e-0d1e2f3a4b5c\"}";

    public static final String PROBLEM_DELIVERY_CONFLICT = "{\"type\": \"urn:readpast:problem:state-conflict\", "
            + "\"title\": \"Conflict\", \"status\": 409, \"detail\": \"Delivery "
            + "6f1c2a4e-8b3d-4f5a-9c7e-0d1e2f3a4b5c is DELIVERED; only DEAD deliveries can be retried.\", "
            + "\"instance\": \"/webhooks/deliveries/6f1c2a4e-8b3d-4f5a-9c7e-0d1e2f3a4b5c/retry\"}";
}
