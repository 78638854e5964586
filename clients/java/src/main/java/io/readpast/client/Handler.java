package io.readpast.client;

/**
 * Does the work of a job and returns its result (any JSON value Json can write, or null). An
 * exception fails the job, recorded as "&lt;class&gt;: &lt;message&gt;"; a {@link JobException}
 * chooses whether and when it is retried. The handler should stop when
 * {@link Job#isCancelled()} (its thread is also interrupted).
 */
@FunctionalInterface
public interface Handler {
    Object handle(Job job) throws Exception;
}
