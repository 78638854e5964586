package driver;

import static driver.kit.Http.post;
import static driver.kit.Opts.intOpt;

import driver.kit.Opts;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Mode "idle": W long-polling workers on an empty queue (waitSeconds 30, one keep-alive connection
 * each) for --seconds; prints how many claims answered (each answer is an empty batch after its
 * wait). The caller (bench/run) counts the database's transactions meanwhile.
 *
 * Options: --workers (100), --seconds (60), --queue (idle). Output: RESULT idle.
 */
final class Idle {
    private Idle() {
    }

    static void run() throws Exception {
        int workers = intOpt("workers", 100);
        double seconds = Opts.doubleOpt("seconds", "60");
        String queue = Opts.get("queue", "idle");
        long end = System.nanoTime() + (long) (seconds * 1e9);
        AtomicInteger answers = new AtomicInteger();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            String body = "{\"workerId\":\"idle-w" + w + "\",\"queues\":[\"" + queue
                    + "\"],\"limit\":1,\"waitSeconds\":30}";
            Thread t = Thread.ofPlatform().daemon().name("idle-worker-" + w).start(() -> {
                try {
                    while (System.nanoTime() < end) {
                        if (post("/claim", body, 200).path("jobs").size() != 0) {
                            throw new IllegalStateException("the idle queue had a job");
                        }
                        answers.incrementAndGet();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(t);
        }
        Thread.sleep((long) (seconds * 1000));
        if (!errors.isEmpty()) {
            throw new IllegalStateException("idle worker failed", errors.get(0));
        }
        System.out.printf(Locale.ROOT, "RESULT idle workers=%d seconds=%.0f answers=%d%n", workers, seconds, answers.get());
        System.out.flush();
        // the workers' last waits are still open: the caller stops the broker
    }
}
