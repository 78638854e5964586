package driver.kit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Percentiles (nearest rank), medians and means of measured values. */
public final class Stats {
    private Stats() {
    }

    /** Percentile p of the values (nearest rank); NaN when empty. Synchronizes on a synchronized list. */
    public static double pct(List<Long> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        long[] v;
        synchronized (values) {
            v = values.stream().mapToLong(Long::longValue).toArray();
        }
        Arrays.sort(v);
        int i = (int) Math.ceil(p / 100.0 * v.length) - 1;
        return v[Math.max(0, Math.min(v.length - 1, i))];
    }

    /** Percentile p of sorted values (nearest rank); NaN when empty. */
    public static double at(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    public static double mean(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).average().orElse(Double.NaN);
    }

    public static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        int m = s.size() / 2;
        return s.size() % 2 == 1 ? s.get(m) : (s.get(m - 1) + s.get(m)) / 2;
    }

    /** The values formatted and joined with commas. */
    public static String joined(List<Double> xs, String format) {
        StringBuilder sb = new StringBuilder();
        for (double x : xs) {
            sb.append(sb.isEmpty() ? "" : ",").append(String.format(Locale.ROOT, format, x));
        }
        return sb.toString();
    }
}
