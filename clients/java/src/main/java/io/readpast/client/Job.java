package io.readpast.client;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A claimed job, as its handler sees it. */
public final class Job {

    /** Why a job was cancelled. */
    public enum CancelReason {
        /** A heartbeat was answered 404/409: another worker may have the job. */
        LEASE_LOST("lease-lost"),
        /** An operator cancelled the job. */
        CANCEL_REQUESTED("cancel-requested"),
        /** The worker stopped and its shutdown deadline passed. */
        SHUTDOWN("shutdown");

        private final String text;

        CancelReason(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    enum State { RUNNING, FINISHING, DONE, LOST, RELEASED, ACKED }

    private final JobView view;
    private final String leaseId;
    private final CountDownLatch cancelled = new CountDownLatch(1);
    private volatile CancelReason cancelReason;
    private volatile Thread thread;
    volatile State state = State.RUNNING;
    volatile Map<String, Object> progress;

    Job(Map<String, Object> data) {
        this.view = new JobView(data);
        this.leaseId = (String) data.get("leaseId");
    }

    public String id() {
        return view.id();
    }

    public String queue() {
        return view.queue();
    }

    public String type() {
        return view.type();
    }

    /** The decoded payload (Map, List, String, Long, Double, Boolean or null). */
    public Object payload() {
        return view.payload();
    }

    /** The payload as a JSON object (empty when it is not one). */
    @SuppressWarnings("unchecked")
    public Map<String, Object> payloadMap() {
        return view.payload() instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    public int attempt() {
        return view.attempt();
    }

    public int maxAttempts() {
        return view.maxAttempts();
    }

    public String leaseId() {
        return leaseId;
    }

    /** The producer's W3C traceparent, or null. */
    public String traceparent() {
        return view.traceparent();
    }

    public String tracestate() {
        return view.tracestate();
    }

    /** The whole job as the claim returned it. */
    public JobView view() {
        return view;
    }

    public boolean isCancelled() {
        return cancelReason != null;
    }

    /** Why the job was cancelled, or null. */
    public CancelReason cancelReason() {
        return cancelReason;
    }

    /** Waits until the job is cancelled or the time is up; true when cancelled. */
    public boolean awaitCancellation(Duration timeout) throws InterruptedException {
        try {
            return cancelled.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            if (cancelReason != null) { // the cancel's own interrupt: answer, and keep the thread's flag
                Thread.currentThread().interrupt();
                return true;
            }
            throw e;
        }
    }

    /** Progress to report with the next heartbeat. */
    public void progress(int percent, String message) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("percent", percent);
        if (message != null) {
            p.put("message", message);
        }
        progress = p;
    }

    /** The thread running the handler (null when it ended): a cancel interrupts it, under this lock. */
    synchronized void bind(Thread t) {
        thread = t;
        if (cancelReason != null && t != null) {
            t.interrupt();
        }
    }

    void cancel(CancelReason reason) {
        synchronized (this) {
            if (cancelReason != null) {
                return;
            }
            cancelReason = reason;
            cancelled.countDown();
            if (thread != null) {
                thread.interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "Job[" + id() + " " + type() + " attempt " + attempt() + "]";
    }
}
