package io.readpast.store;

/** A page of dead letters, newest first: queue and type optional, after the id {@code after} (null: from the newest). */
public record DeadFilter(String queue, String type, Long after, int limit) {
}
