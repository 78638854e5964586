package io.readpast.security;

import jakarta.enterprise.context.RequestScoped;

/** Who is calling, for the current request: set by {@link AuthFilter}, null key when auth is off. */
@RequestScoped
public class Caller {

    private ApiKey key;

    void set(ApiKey key) {
        this.key = key;
    }

    /** The key's name, recorded as createdBy/modifiedBy; null when authentication is off. */
    public String name() {
        return key == null ? null : key.name();
    }

    /** True when the caller may use this queue (always, when auth is off or the key is unscoped). */
    public boolean mayUseQueue(String queue) {
        return key == null || key.mayUseQueue(queue);
    }

    /** The key's roles; null when authentication is off (every call is allowed then). */
    public java.util.Set<Role> roles() {
        return key == null ? null : key.roles();
    }

    /** The key's queue scope, or null for every queue. */
    public java.util.Set<String> queueScope() {
        return key == null ? null : key.queues();
    }
}
