package io.readpast.ops;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.readpast.core.TraceContext;
import io.readpast.store.JobRow;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.Collection;

/**
 * The broker's spans, tied to each job's own trace (the W3C context its enqueue carried):
 * <ul>
 *   <li>{@code readpast enqueue}: a child of the request's span (itself a child of the
 *   producer's traceparent); the job stores this span's context, so that what follows joins
 *   the producer's trace under it;</li>
 *   <li>{@code readpast heartbeat}, {@code readpast complete}, {@code readpast fail},
 *   {@code readpast release}: children of the job's stored context, linked to the request's
 *   span (the worker's own trace, when it sends one);</li>
 *   <li>{@code readpast claim}, and the batch calls: one span per request, with a link to each
 *   job's context.</li>
 * </ul>
 * Every job span carries queue, type, attempt and job id ({@code readpast.*} attributes). With
 * the SDK off (the default: no OTLP endpoint) every span is a no-op and the stored context is
 * the producer's, unchanged.
 */
@ApplicationScoped
public class JobTracing {

    static final AttributeKey<String> QUEUE = AttributeKey.stringKey("readpast.queue");
    static final AttributeKey<String> TYPE = AttributeKey.stringKey("readpast.type");
    static final AttributeKey<String> JOB_ID = AttributeKey.stringKey("readpast.job.id");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("readpast.attempt");
    static final AttributeKey<Long> JOBS = AttributeKey.longKey("readpast.jobs");

    private final Tracer tracer;
    /**
     * The SDK is on (READPAST_OTLP_ENDPOINT, or readpast.otel.enabled). With it off, Quarkus's
     * instrumentation may still hand out spans with fresh random ids: nothing of them is kept (the
     * job stores the producer's context as sent, or none) and no span is started here.
     */
    private final boolean on;

    public JobTracing(Tracer tracer,
                      @org.eclipse.microprofile.config.inject.ConfigProperty(name = "quarkus.otel.sdk.disabled",
                              defaultValue = "false") boolean sdkDisabled) {
        this.tracer = tracer;
        this.on = !sdkDisabled;
    }

    /** An enqueue in progress: its span, and the context the new job(s) will store. */
    public final class Enqueue implements AutoCloseable {
        private final Span span;
        private final TraceContext stored;

        Enqueue(Span span, TraceContext stored) {
            this.span = span;
            this.stored = stored;
        }

        /** What a job of this enqueue stores: this span's context when it records, else the producer's. */
        public TraceContext context() {
            return stored;
        }

        /** The job the enqueue made (or found). */
        public void job(JobRow job) {
            if (job != null && span.isRecording()) {
                span.setAllAttributes(jobAttributes(job));
            }
        }

        /** The jobs a batch enqueue made. */
        public void jobs(int n) {
            span.setAttribute(JOBS, (long) n);
        }

        @Override
        public void close() {
            span.end();
        }
    }

    /** True when spans are recorded (the SDK is on): a call's span then needs the job's row. */
    public boolean on() {
        return on;
    }

    /** Starts the span of an enqueue whose producer sent {@code producer} (null: none). */
    public Enqueue enqueue(TraceContext producer, String queue, String type) {
        if (!on) {
            return new Enqueue(Span.getInvalid(), producer);
        }
        SpanBuilder b = tracer.spanBuilder("readpast enqueue").setSpanKind(SpanKind.PRODUCER);
        if (queue != null) {
            b.setAttribute(QUEUE, queue);
        }
        if (type != null) {
            b.setAttribute(TYPE, type);
        }
        Span span = b.startSpan();
        // only a span that records is worth pointing at (a sampled-out one is not)
        SpanContext sc = span.getSpanContext();
        TraceContext stored = span.isRecording() && sc.isValid()
                ? new TraceContext("00-" + sc.getTraceId() + "-" + sc.getSpanId() + "-" + sc.getTraceFlags().asHex(),
                        producer == null ? null : producer.tracestate())
                : producer;
        return new Enqueue(span, stored);
    }

    /** A call on one job (heartbeat, complete, fail, release) that started at {@code start}: its span. */
    public void jobCall(String what, JobRow job, Instant start) {
        if (job == null || !on) {
            return;
        }
        SpanContext request = Span.current().getSpanContext();
        if (!request.isValid()) {
            return; // nothing records: the SDK is off (with it on, every request has its server span)
        }
        SpanBuilder b = tracer.spanBuilder("readpast " + what).setSpanKind(SpanKind.CONSUMER)
                .setStartTimestamp(start)
                .setAllAttributes(jobAttributes(job));
        SpanContext parent = remote(job.traceparent(), job.tracestate());
        if (parent != null) {
            b.setParent(Context.root().with(Span.wrap(parent))).addLink(request);
        }
        b.startSpan().end();
    }

    /** A request over many jobs (claim, batch calls): one span, linked to each job's trace. */
    public void manyJobs(String what, Collection<JobRow> jobs, Instant start) {
        if (!on || !Span.current().getSpanContext().isValid()) {
            return; // nothing records: the SDK is off
        }
        SpanBuilder b = tracer.spanBuilder("readpast " + what).setSpanKind(SpanKind.CONSUMER)
                .setStartTimestamp(start)
                .setAttribute(JOBS, (long) jobs.size());
        for (JobRow job : jobs) {
            SpanContext linked = remote(job.traceparent(), job.tracestate());
            if (linked != null) {
                b.addLink(linked, jobAttributes(job));
            }
        }
        b.startSpan().end();
    }

    private static Attributes jobAttributes(JobRow job) {
        return Attributes.of(QUEUE, job.queue(), TYPE, job.type(), JOB_ID, Long.toString(job.id()),
                ATTEMPT, (long) job.attempt());
    }

    /** A stored traceparent as a remote span context, or null (none, or no longer valid). */
    static SpanContext remote(String traceparent, String tracestate) {
        TraceContext t = TraceContext.parse(traceparent, tracestate);
        if (t == null) {
            return null;
        }
        SpanContext sc = SpanContext.createFromRemoteParent(t.traceId(), t.spanId(),
                t.sampled() ? TraceFlags.getSampled() : TraceFlags.getDefault(), TraceState.getDefault());
        return sc.isValid() ? sc : null;
    }
}
