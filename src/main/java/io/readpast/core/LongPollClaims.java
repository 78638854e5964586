package io.readpast.core;

import io.readpast.store.JobRow;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Claims that may wait ({@code waitSeconds}): claim once; when nothing is claimable, wait in
 * {@link Wakeups} (no thread of the pool, no database connection) until new work is announced
 * (an enqueue on this instance, a NOTIFY from another one, or the shared due-time poll), then
 * claim again, until the deadline. A claim that found nothing because a capped queue with room
 * was held by another claim for as long as it tried ({@link Leases.AckAndClaim#contended}) claims
 * again at once: that holder's commit announces nothing. A filter that just found nothing is not asked again until
 * something is announced, so idle long-polls cost no statements.
 */
@ApplicationScoped
public class LongPollClaims {

    private final Leases leases;
    private final Wakeups wakeups;
    /** Queue filter -> the wake-up generation at which a claim with that filter found nothing. */
    private final ConcurrentHashMap<String, Long> emptyAt = new ConcurrentHashMap<>();

    public LongPollClaims(Leases leases, Wakeups wakeups) {
        this.leases = leases;
        this.wakeups = wakeups;
    }

    public List<JobRow> claim(String workerId, List<String> queues, List<String> types, int limit,
                              Integer leaseSeconds, String by, int waitSeconds) {
        return claim(List.of(), workerId, queues, types, limit, leaseSeconds, by, waitSeconds).jobs();
    }

    /**
     * As {@link #claim(String, List, List, int, Integer, String, int)}, acknowledging {@code acks} first:
     * the first attempt completes them and claims in one transaction (so the acks are committed
     * before any waiting); later attempts only claim.
     */
    public Leases.AckAndClaim claim(List<io.readpast.store.CompleteItem> acks, String workerId, List<String> queues,
                                    List<String> types, int limit, Integer leaseSeconds, String by, int waitSeconds) {
        long deadline = System.nanoTime() + waitSeconds * 1_000_000_000L;
        // what this claim can see: its queues and its job types (a claim of some types that found
        // nothing says nothing about a claim of others)
        String key = (queues == null ? "*" : String.join("\u0000", queues.stream().sorted().toList()))
                + (types == null ? "" : "\u0001" + String.join("\u0000", types.stream().sorted().toList()));
        boolean woken = false;
        List<Leases.Completion> acked = acks.isEmpty() ? List.of() : null;  // null: acks still to send
        while (true) {
            long generation = wakeups.generation(queues);
            if (acked == null || woken || waitSeconds == 0 || !Objects.equals(emptyAt.get(key), generation)) {
                Leases.AckAndClaim got = leases.ackAndClaim(acked == null ? acks : List.of(), workerId, queues, types,
                        limit, leaseSeconds, by);
                if (acked == null) {
                    acked = got.acks();
                }
                List<JobRow> jobs = got.jobs();
                if (!jobs.isEmpty()) {
                    if (jobs.size() >= limit) {
                        // a full batch: there may be more in these queues, let the next waiter look
                        jobs.stream().map(JobRow::queue).distinct().forEach(q -> wakeups.release(q, 1));
                    }
                    return new Leases.AckAndClaim(acked, jobs);
                }
                if (got.contended() && waitSeconds > 0 && System.nanoTime() < deadline) {
                    // a capped queue with room and due work was held by another claim all the
                    // while this one tried: its holder commits soon, and nothing will be
                    // announced when it does, so claim again rather than wait
                    woken = true;
                    continue;
                }
                if (emptyAt.size() > 10_000) {
                    emptyAt.clear();
                }
                emptyAt.put(key, generation);
            }
            if (waitSeconds == 0 || System.nanoTime() >= deadline) {
                return new Leases.AckAndClaim(acked, List.of());
            }
            try {
                woken = wakeups.await(queues, limit, generation, deadline);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Leases.AckAndClaim(acked, List.of());
            }
        }
    }
}
