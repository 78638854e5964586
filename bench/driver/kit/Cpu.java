package driver.kit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU clock ticks, from /proc, of the broker process(es), of every PostgreSQL process, of this
 * driver and of the whole machine, at one moment; the differences of two readings are CPU-seconds.
 */
public record Cpu(long broker, long pg, long self, long busy, long hz) {
    /** Clock ticks per second (bench/run passes getconf CLK_TCK as --clk-tck). */
    public static final long HZ = Long.parseLong(Opts.get("clk-tck", "100"));

    public static Cpu read(long brokerPid, long postmaster) {
        return read(new long[] {brokerPid}, postmaster);
    }

    /** The brokers' CPU is the sum over every broker process given. */
    public static Cpu read(long[] brokerPids, long postmaster) {
        long b = 0;
        for (long pid : brokerPids) {
            long[] bs = stat(pid);
            if (bs != null) {
                b += bs[2] + bs[3];
            }
        }
        long[] me = stat(ProcessHandle.current().pid());
        return new Cpu(b, pgTicks(postmaster), me == null ? 0 : me[2] + me[3], busyTicks(), HZ);
    }

    /** Machine CPU used meanwhile by processes other than the broker, PostgreSQL and this driver. */
    public double otherS(Cpu before) {
        return Math.max(0, (busy - before.busy) / (double) hz - brokerS(before) - pgS(before) - selfS(before));
    }

    public double selfS(Cpu before) {
        return (self - before.self) / (double) hz;
    }

    public double brokerS(Cpu before) {
        return (broker - before.broker) / (double) hz;
    }

    public double pgS(Cpu before) {
        return (pg - before.pg) / (double) hz;
    }

    /**
     * utime+stime of the postmaster and of every live child of it, plus the postmaster's
     * cutime+cstime (children that exited and were reaped, e.g. backends of closed connections).
     */
    public static long pgTicks(long postmaster) {
        long sum = 0;
        long[] pm = stat(postmaster);
        if (pm != null) {
            sum += pm[2] + pm[3] + pm[4] + pm[5];
        }
        try (var dirs = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long pid = Long.parseLong(name);
                if (pid == postmaster) {
                    continue;
                }
                long[] s = stat(pid);
                if (s != null && s[0] == postmaster) {
                    sum += s[2] + s[3];
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return sum;
    }

    /** Busy CPU ticks of the whole machine: /proc/stat's cpu line without idle and iowait. */
    public static long busyTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            return Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                    + Long.parseLong(f[7]) + Long.parseLong(f[8]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** [ppid, unused, utime, stime, cutime, cstime] from /proc/pid/stat, or null if gone. */
    public static long[] stat(long pid) {
        try {
            String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
            // f[0] = state (field 3), so field k is f[k - 3]
            return new long[] {Long.parseLong(f[1]), 0, Long.parseLong(f[11]), Long.parseLong(f[12]),
                    Long.parseLong(f[13]), Long.parseLong(f[14])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** utime+stime per thread group of a process: thread names with digits and spaces folded. */
    public static Map<String, Long> threadTicks(long pid) {
        Map<String, Long> out = new HashMap<>();
        try (var dirs = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path d : dirs) {
                try {
                    String s = Files.readString(d.resolve("stat"));
                    String comm = s.substring(s.indexOf('(') + 1, s.lastIndexOf(')'));
                    String group = comm.replaceAll("[0-9]+", "#").replaceAll("[^A-Za-z#._-]+", "_");
                    String[] f = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
                    out.merge(group, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (IOException | RuntimeException e) {
                    // thread ended
                }
            }
        } catch (IOException e) {
            // process gone
        }
        return out;
    }
}
