package io.readpast.client;

import java.util.ArrayList;
import java.util.List;

/**
 * SIGTERM and SIGINT call a stop action while a worker runs, so that its run() returns normally
 * (and the program exits 0) instead of the JVM exiting with 143/130. Uses sun.misc.Signal (module
 * jdk.unsupported, in every JDK); where a signal cannot be handled (ignored at start, as a
 * background job's SIGINT), a shutdown hook stops the worker and waits for it instead.
 */
final class Signals {

    private Signals() {
    }

    /** Installs the handlers; the returned actions put the previous ones back. */
    static List<Runnable> install(Runnable stop, Runnable stopAndWait) {
        List<Runnable> restore = new ArrayList<>();
        boolean hooked = false;
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal sig = new sun.misc.Signal(name);
                sun.misc.SignalHandler old = sun.misc.Signal.handle(sig, s -> stop.run());
                restore.add(() -> sun.misc.Signal.handle(sig, old));
            } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
                if (!hooked) {
                    hooked = true;
                    Thread hook = new Thread(stopAndWait, "readpast-shutdown");
                    Runtime.getRuntime().addShutdownHook(hook);
                    restore.add(() -> {
                        try {
                            Runtime.getRuntime().removeShutdownHook(hook);
                        } catch (IllegalStateException shuttingDown) {
                            // the JVM is exiting already
                        }
                    });
                }
            }
        }
        return restore;
    }
}
