package io.readpast.client;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Runs jobs on up to {@code size} daemon threads, started as they are needed and woken one at a
 * time: a thread that takes a job while more are queued wakes (or starts) one more, with one wake
 * in flight at once. A burst of short jobs then runs on the few threads already awake instead of
 * unparking (or starting) one thread per job, while slow jobs still spread over every thread
 * within a few milliseconds.
 */
final class Dispatcher {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final ArrayDeque<Job> queue = new ArrayDeque<>();
    private final Consumer<Job> run;
    private final int size;
    private int started;
    private int parked;
    private boolean waking;
    private boolean closed;

    Dispatcher(int size, Consumer<Job> run) {
        this.size = size;
        this.run = run;
    }

    void submit(Collection<Job> jobs) {
        lock.lock();
        try {
            queue.addAll(jobs);
            wakeOne();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: one more thread for the queued jobs, unless a wake is in flight. */
    private void wakeOne() {
        if (waking || queue.isEmpty()) {
            return;
        }
        if (parked > 0) {
            waking = true;
            work.signal();
        } else if (started < size) {
            waking = true;
            started++;
            Thread t = new Thread(this::loop, "readpast-handler-" + NAMES.incrementAndGet());
            t.setDaemon(true); // a handler that never returns must not keep the JVM alive
            t.start();
        }
    }

    private void loop() {
        boolean woken = true;
        while (true) {
            Job job;
            lock.lock();
            try {
                if (woken) {
                    waking = false;
                    woken = false;
                }
                while (queue.isEmpty() && !closed) {
                    parked++;
                    work.awaitUninterruptibly();
                    parked--;
                    waking = false;
                }
                if (queue.isEmpty()) {
                    started--;
                    return;
                }
                job = queue.poll();
                wakeOne(); // more queued: one more thread
            } finally {
                lock.unlock();
            }
            run.accept(job);
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
            work.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
