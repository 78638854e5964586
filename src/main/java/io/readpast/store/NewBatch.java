package io.readpast.store;

import java.util.List;

/**
 * A batch to create: the queues of its jobs and callback ({@code queues}), when it fires
 * ({@code fireOn}: {@link BatchRow#FIRE_ON_COMPLETION}, {@link BatchRow#FIRE_ON_SUCCESS} or
 * {@link BatchRow#FIRE_ON_DEATH}), the callback job to enqueue then ({@code callback}: null, or a
 * callback as {@link BatchRow#callback()} stores it) and the URL to POST then ({@code webhookUrl}:
 * null, none); {@code close} closes it at once.
 */
public record NewBatch(List<String> queues, int fireOn, String callback, String webhookUrl, boolean close,
                       String createdBy) {
}
