package io.readpast.store;

import java.time.Instant;

/**
 * A stored API key: name, roles ("admin", "producer+worker"), SHA-256 hex digest, queue scope
 * (a|b as in READPAST_API_KEYS; null = every queue), origin ("generated" at first start, or
 * "api"), the key that made it and when.
 */
public record StoredKey(String name, String roles, String digest, String queues, String origin, String createdBy,
                        Instant createdAt) {
}
