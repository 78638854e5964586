package io.readpast.security;

import java.util.Set;

/**
 * A configured or generated key: its name (recorded as createdBy/modifiedBy), roles, the
 * SHA-256 digest of the secret, and an optional queue scope (null = every queue).
 */
public record ApiKey(String name, Set<Role> roles, byte[] digest, Set<String> queues) {

    public boolean has(Role role) {
        return roles.contains(role) || roles.contains(Role.ADMIN);
    }

    public boolean mayUseQueue(String queue) {
        return queues == null || queues.contains(queue);
    }
}
