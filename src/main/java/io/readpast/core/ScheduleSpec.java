package io.readpast.core;

/**
 * A schedule as its owner sets it: cron expression and time zone, the template of the job it
 * enqueues (payload and tags as JSON text), its policies, and whether it starts paused.
 */
public record ScheduleSpec(String name, String cron, String timeZone, String queue, String type, String payload,
                           String tags, int priority, Integer maxAttempts, Overlap overlap, CatchUp catchUp,
                           boolean paused) {
}
