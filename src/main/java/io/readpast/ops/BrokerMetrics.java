package io.readpast.ops;

import io.readpast.core.JobEvents;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Readpast's Prometheus metrics (at /q/metrics): job counters per queue and event, queue depth
 * and lag gauges per queue (refreshed by {@link QueueGauges}), claim latency and batch size.
 */
@ApplicationScoped
@io.quarkus.runtime.Startup // its meters (the merging counters, the waiting claims) are served from the start
public class BrokerMetrics implements JobEvents {

    /** The latest depth and lag of one queue, read by the gauges. */
    record QueueState(double pending, double lagSeconds, double leased, double processing) {
    }

    private final MeterRegistry registry;
    private final Map<Event, Map<String, Counter>> byEvent = new java.util.EnumMap<>(Event.class);

    {
        for (Event e : Event.values()) {
            byEvent.put(e, new ConcurrentHashMap<>());
        }
    }
    private final Map<String, AtomicReference<QueueState>> queues = new ConcurrentHashMap<>();
    private final Timer claimTimer;
    private final DistributionSummary claimBatch;

    public BrokerMetrics(MeterRegistry registry, io.readpast.core.MergeStats merges, io.readpast.core.Wakeups wakeups,
                         io.readpast.store.JobStore jobs) {
        this.registry = registry;
        io.micrometer.core.instrument.FunctionCounter.builder("readpast.claim.contended.retries", jobs,
                        BrokerMetrics::contendedRetries)
                .description("Claim transactions tried again because a capped queue with room and due work was "
                        + "held by another claim (docs/fairness.md)")
                .register(registry);
        Gauge.builder("readpast.claims.waiting", wakeups, io.readpast.core.Wakeups::waiting)
                .description("Long-polling claims of this instance waiting for work").register(registry);
        for (io.readpast.core.MergeStats.Kind kind : io.readpast.core.MergeStats.Kind.values()) {
            String k = kind.name().toLowerCase(java.util.Locale.ROOT);
            io.micrometer.core.instrument.FunctionCounter.builder("readpast.merged.statements", merges,
                            m -> m.statements(kind))
                    .description("Statements run for merged requests (readpast.merging.*)").tag("kind", k)
                    .register(registry);
            io.micrometer.core.instrument.FunctionCounter.builder("readpast.merged.requests", merges,
                            m -> m.requests(kind))
                    .description("Requests those statements served: requests per statement above 1 is merging")
                    .tag("kind", k).register(registry);
        }
        this.claimTimer = Timer.builder("readpast.claim.duration")
                .description("Time to run one claim (one transaction), waiting excluded")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(5))
                .register(registry);
        this.claimBatch = DistributionSummary.builder("readpast.claim.batch.size")
                .description("Jobs returned per claim that returned any")
                .publishPercentileHistogram()
                .minimumExpectedValue(1.0)
                .maximumExpectedValue(1000.0)
                .register(registry);
    }

    /** The store's count; 0 while the database has not started (a scrape never fails on it). */
    private static double contendedRetries(io.readpast.store.JobStore jobs) {
        try {
            return jobs.contendedClaimRetries();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    @Override
    public void count(Event event, String queue, int n) {
        if (n <= 0 || queue == null) {
            return;
        }
        // one map per event, keyed by queue alone: no name built per call
        byEvent.get(event).computeIfAbsent(queue, q -> Counter.builder("readpast.jobs."
                        + event.name().toLowerCase(java.util.Locale.ROOT))
                .description(event.description())
                .tag("queue", q)
                .register(registry)).increment(n);
    }

    @Override
    public void claimed(long nanos, int jobs) {
        claimTimer.record(Duration.ofNanos(nanos));
        if (jobs > 0) {
            claimBatch.record(jobs);
        }
    }

    /** Updates the gauges of one queue (registered on first sight). */
    void queueState(String queue, QueueState state) {
        queues.computeIfAbsent(queue, q -> {
            AtomicReference<QueueState> ref = new AtomicReference<>(state);
            Gauge.builder("readpast.queue.pending", ref, r -> r.get().pending())
                    .description("Jobs claimable now (due, not leased)").tag("queue", q).register(registry);
            Gauge.builder("readpast.queue.lag.seconds", ref, r -> r.get().lagSeconds())
                    .description("Age of the oldest claimable job (database clock)").tag("queue", q).register(registry);
            Gauge.builder("readpast.queue.leased", ref, r -> r.get().leased())
                    .description("Jobs leased, not yet started").tag("queue", q).register(registry);
            Gauge.builder("readpast.queue.processing", ref, r -> r.get().processing())
                    .description("Jobs being processed").tag("queue", q).register(registry);
            return ref;
        }).set(state);
    }
}
