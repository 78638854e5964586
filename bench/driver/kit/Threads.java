package driver.kit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Runs a body on N platform threads and waits for all of them; the first failure is rethrown. */
public final class Threads {
    private Threads() {
    }

    public interface Body {
        void run(int index) throws Exception;
    }

    public static void runThreads(int count, String name, Body body) throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < count; i++) {
            int index = i;
            Thread t = new Thread(() -> {
                try {
                    body.run(index);
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, name + "-" + i);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException(name + " failed: " + errors.get(0), errors.get(0));
        }
    }
}
