package driver.kit;

import java.util.HashMap;
import java.util.Map;

/** The command line: {@code <mode> --key value ...}, read by every measurement. */
public final class Opts {
    private static final Map<String, String> OPTS = new HashMap<>();

    private Opts() {
    }

    /** Reads {@code --key value} pairs from {@code args[1..]} (args[0] is the mode). */
    public static void parse(String[] args) {
        for (int i = 1; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                die("bad option " + args[i]);
            }
            OPTS.put(args[i].substring(2), args[i + 1]);
        }
    }

    public static String get(String key) {
        return OPTS.get(key);
    }

    public static String get(String key, String dflt) {
        return OPTS.getOrDefault(key, dflt);
    }

    public static boolean has(String key) {
        return OPTS.containsKey(key);
    }

    public static int intOpt(String key, int dflt) {
        return OPTS.containsKey(key) ? Integer.parseInt(OPTS.get(key)) : dflt;
    }

    public static double doubleOpt(String key, String dflt) {
        return Double.parseDouble(OPTS.getOrDefault(key, dflt));
    }

    /** A required option: exits with status 2 when it is missing. */
    public static String req(String key) {
        String v = OPTS.get(key);
        if (v == null) {
            die("missing --" + key);
        }
        return v;
    }

    public static void die(String msg) {
        System.err.println("Driver: " + msg);
        System.exit(2);
    }
}
