package io.readpast.store;

/**
 * How old feature-table rows must be before housekeeping deletes them (fire records, DELIVERED
 * and DEAD deliveries; uniqueness keys go when their window ran out), and how many of each per pass.
 */
public record HousekeepingAges(long fireOlderThanMs, long deliveredOlderThanMs, long deadOlderThanMs, int limit) {
}
