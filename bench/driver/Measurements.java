package driver;

import driver.kit.Opts;

/** The driver's modes, each the entry of one measurement class (the classes are package-private). */
public final class Measurements {
    private Measurements() {
    }

    public static void run(String mode) throws Exception {
        switch (mode) {
            case "throughput" -> Drain.run();
            case "latency" -> Latency.run();
            case "backlog" -> Backlog.run();
            case "idle" -> Idle.run();
            case "sustained" -> Sustained.run();
            case "ceiling" -> Ceiling.run();
            default -> Opts.die("unknown mode " + mode);
        }
    }
}
