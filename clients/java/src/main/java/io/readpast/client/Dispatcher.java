package io.readpast.client;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Runs jobs on a fixed set of daemon threads, waking parked threads one at a time: a thread that
 * takes a job while more are queued wakes one more, and only one wake is in flight at once. A
 * burst of short jobs then runs on the few threads already awake instead of unparking one thread
 * per job (each unpark a system call and a context switch), while slow jobs still spread over
 * every thread within a few milliseconds.
 */
final class Dispatcher {
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final ArrayDeque<Job> queue = new ArrayDeque<>();
    private final Consumer<Job> run;
    private final List<Thread> threads;
    private int parked;
    private boolean waking;
    private boolean closed;

    Dispatcher(int size, Consumer<Job> run) {
        this.run = run;
        Thread[] ts = new Thread[size];
        for (int i = 0; i < size; i++) {
            ts[i] = new Thread(this::loop, "readpast-handler-" + THREADS.incrementAndGet());
            ts[i].setDaemon(true); // a handler that never returns must not keep the JVM alive
            ts[i].start();
        }
        this.threads = List.of(ts);
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

    private void wakeOne() {
        if (!waking && parked > 0 && !queue.isEmpty()) {
            waking = true;
            work.signal();
        }
    }

    private void loop() {
        while (true) {
            Job job;
            lock.lock();
            try {
                while (queue.isEmpty() && !closed) {
                    parked++;
                    work.awaitUninterruptibly();
                    parked--;
                    waking = false;
                }
                if (closed && queue.isEmpty()) {
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

    int size() {
        return threads.size();
    }
}
