package io.readpast.store;

import io.readpast.config.Engine;

/**
 * Fired once, synchronously, when the database is migrated and every store port works, before
 * any background task starts: what needs the store at start-up observes it. An observer that
 * throws stops start-up with its message.
 */
public record StoreReady(Engine engine) {
}
