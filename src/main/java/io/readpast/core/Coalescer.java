package io.readpast.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Natural batching of one kind of request: whoever finds nothing in flight runs its own item at
 * once, alone; items that arrive while a statement of theirs is in flight wait, and the next
 * statement takes all of them (up to {@code maxWeight}) together. No timer: under light load
 * every item runs alone, as it would without this class; under load the statements grow and
 * their number per item falls. Each caller gets its own answer, and only after the statement
 * that holds its item has finished (committed, or failed: then every item of it gets the
 * failure). Safe for any number of threads, virtual ones included (waiters park).
 *
 * <p>The thread of one of the waiting callers runs each statement, at most {@code lanes} at once:
 * when a statement is done, its runner hands its lane to the first waiter and returns its own
 * answer, so that nobody's answer waits for more than the statements in flight before its own.
 *
 * @param <I> an item (a request's part of a statement)
 * @param <O> the answer to one item
 */
public final class Coalescer<I, O> {

    private final Function<List<I>, List<O>> statement;
    private final ToIntFunction<I> weight;
    private final int maxWeight;
    private final int lanes;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Slot<I, O>> line = new ArrayDeque<>();
    /** Statements in flight, or handed to a waiter about to run one (at most {@code lanes}). */
    private int running;
    private final java.util.function.IntConsumer ran;

    /**
     * @param statement runs the items of one statement; returns one answer per item, in order
     *                  (it may throw: every item of that statement then gets the exception)
     * @param weight    an item's share of a statement (jobs, rows); at most {@code maxWeight}
     *                  go into one statement, but an item heavier than that runs alone
     * @param lanes     statements of this kind in flight at once: items wait (and merge) only
     *                  when every lane is busy
     */
    public Coalescer(Function<List<I>, List<O>> statement, ToIntFunction<I> weight, int maxWeight, int lanes,
                     java.util.function.IntConsumer ran) {
        this.statement = statement;
        this.weight = weight;
        this.maxWeight = Math.max(1, maxWeight);
        this.lanes = Math.max(1, lanes);
        this.ran = ran;
    }

    private static final class Slot<I, O> {
        final I item;
        final Thread owner = Thread.currentThread();
        volatile boolean done;
        volatile boolean lead;
        O answer;
        RuntimeException failure;

        Slot(I item) {
            this.item = item;
        }

        O get() {
            if (failure != null) {
                throw failure;
            }
            return answer;
        }
    }

    /** Runs {@code item} in the next statement of its kind; its answer once that statement is done. */
    public O submit(I item) {
        Slot<I, O> mine = new Slot<>(item);
        boolean lane;
        lock.lock();
        try {
            line.addLast(mine);
            lane = running < lanes;
            if (lane) {
                running++;
            }
        } finally {
            lock.unlock();
        }
        if (!lane) {
            // until our statement is done, or a lane is handed to us
            awaitDoneOrLead(mine);
            if (!mine.lead) {
                return mine.get();
            }
        }
        // we hold a lane: run statements from the head of the line until ours is done (another
        // lane may have taken our item: then we wait for its statement), then pass the lane on
        while (!mine.done) {
            List<Slot<I, O>> batch = take();
            if (batch.isEmpty()) {
                awaitDone(mine);
                break;
            }
            run(batch);
        }
        handOn();
        return mine.get();
    }

    /** Parks until the slot is done or leads (an interrupt cannot take the item back: it is kept and waited through). */
    private void awaitDoneOrLead(Slot<I, O> mine) {
        boolean interrupted = false;
        while (!mine.done && !mine.lead) {
            LockSupport.park(this);
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitDone(Slot<I, O> mine) {
        boolean interrupted = false;
        while (!mine.done) {
            LockSupport.park(this);
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private List<Slot<I, O>> take() {
        lock.lock();
        try {
            List<Slot<I, O>> batch = new ArrayList<>();
            int total = 0;
            while (!line.isEmpty()) {
                Slot<I, O> next = line.peekFirst();
                int w = Math.max(1, weight.applyAsInt(next.item));
                if (!batch.isEmpty() && total + w > maxWeight) {
                    break;
                }
                batch.add(line.pollFirst());
                total += w;
            }
            return batch;
        } finally {
            lock.unlock();
        }
    }

    private void run(List<Slot<I, O>> batch) {
        List<I> in = new ArrayList<>(batch.size());
        for (Slot<I, O> s : batch) {
            in.add(s.item);
        }
        ran.accept(batch.size());
        try {
            List<O> out = statement.apply(in);
            if (out.size() != batch.size()) {
                throw new IllegalStateException("a statement of " + batch.size() + " items answered " + out.size());
            }
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).answer = out.get(i);
            }
        } catch (RuntimeException | Error e) {
            RuntimeException failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
            for (Slot<I, O> s : batch) {
                s.failure = failure;
            }
        }
        Thread me = Thread.currentThread();
        for (Slot<I, O> s : batch) {
            s.done = true;
            if (s.owner != me) {
                LockSupport.unpark(s.owner);
            }
        }
    }

    /** Our answer is in: our lane goes to the first waiter not already leading, or is freed. */
    private void handOn() {
        Slot<I, O> next = null;
        lock.lock();
        try {
            for (Slot<I, O> s : line) {
                if (!s.lead) {
                    next = s;
                    break;
                }
            }
            if (next == null) {
                running--;
                return;
            }
            next.lead = true;
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(next.owner);
    }
}
