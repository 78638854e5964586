package driver;

import static driver.kit.Opts.intOpt;
import static driver.kit.Stats.joined;
import static driver.kit.Stats.median;

import driver.kit.Http;
import driver.kit.Opts;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Mode "throughput" with --fair-keys "1 100 10000": the fair queues against the plain one, all in
 * this process (the driver as warm for every queue). An untimed round on a fair queue first, so
 * that the broker's fair claim path is as warm as its plain one; then --repeat R times a plain
 * round and one round per key count, back to back, each ratio taken within its repetition (the
 * plain round just before), and the median ratio reported.
 *
 * Output: the rounds' lines (see {@link Drain}), then RESULT fair_plain and one RESULT fair per key count.
 */
final class Fairness {
    private Fairness() {
    }

    static void run(String queue, int n, int warmup) throws Exception {
        int repeat = intOpt("repeat", 1);
        int[] keyCounts = Arrays.stream(Opts.get("fair-keys").trim().split("[ ,]+")).mapToInt(Integer::parseInt).toArray();
        if (warmup > 0) {
            makeFair(queue + "_warm_fair");
            Drain.round("warm_fair", queue + "_warm_fair", warmup, 100);
        }
        Map<Integer, List<Double>> ratios = new TreeMap<>();
        Map<Integer, List<Double>> rates = new TreeMap<>();
        for (int r = 1; r <= repeat; r++) {
            String plainQueue = queue + "_plain_" + r;
            double plainRate = Drain.round("fair_plain_r" + r, plainQueue, n, 0)[1];
            rates.computeIfAbsent(0, k -> new ArrayList<>()).add(plainRate);
            for (int k : keyCounts) {
                String fq = queue + "_" + k + "_" + r;
                makeFair(fq);
                double rate = Drain.round("fair_k" + k + "_r" + r, fq, n, k)[1];
                rates.computeIfAbsent(k, x -> new ArrayList<>()).add(rate);
                ratios.computeIfAbsent(k, x -> new ArrayList<>()).add(rate / plainRate);
            }
        }
        System.out.printf(Locale.ROOT, "RESULT fair_plain repeat=%d jobs_per_s_median=%.1f jobs_per_s_all=%s%n", repeat,
                median(rates.get(0)), joined(rates.get(0), "%.1f"));
        for (int k : keyCounts) {
            System.out.printf(Locale.ROOT, "RESULT fair keys=%d repeat=%d jobs_per_s_median=%.1f ratio_median=%.2f ratio_all=%s%n",
                    k, repeat, median(rates.get(k)), median(ratios.get(k)), joined(ratios.get(k), "%.2f"));
        }
    }

    /** Makes {@code queue} a fair queue (round-robin between the jobs' fairness keys), before its jobs come. */
    static void makeFair(String queue) throws Exception {
        Http.put("/queues/" + queue, "{\"fairness\":\"round-robin\"}");
    }
}
