package io.readpast.store;

import java.util.List;

/** Filters for browsing jobs; null fields do not filter. {@code after} is the keyset cursor (an id). */
public record JobFilter(String queue, String type, List<Integer> statuses, String tag, Long after, int limit) {
}
