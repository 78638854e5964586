package io.readpast.security;

import io.readpast.core.BrokerException;
import jakarta.enterprise.context.RequestScoped;

import java.util.List;
import java.util.Set;

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

    /**
     * The one queue-scope check: the queues a call acts on, each within the key's scope (else
     * 403 naming the first that is not). {@code queues} null means every queue the key may use:
     * null again for a key of every queue, the key's scope for a scoped one.
     */
    public List<String> requireQueues(List<String> queues) {
        Set<String> scope = queueScope();
        if (scope == null) {
            return queues;
        }
        List<String> named = queues == null ? List.copyOf(scope) : queues;
        for (String q : named) {
            if (!scope.contains(q)) {
                throw BrokerException.forbiddenQueue(q);
            }
        }
        return named;
    }

    /** {@link #requireQueues} for one queue. */
    public void requireQueue(String queue) {
        requireQueues(List.of(queue));
    }

    /** The key's queue scope, or null for every queue. */
    public java.util.Set<String> queueScope() {
        return key == null ? null : key.queues();
    }
}
