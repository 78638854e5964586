package driver;

import static driver.kit.Http.post;
import static driver.kit.Opts.intOpt;
import static driver.kit.Stats.mean;
import static driver.kit.Stats.pct;

import com.fasterxml.jackson.databind.JsonNode;
import driver.kit.Opts;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Mode "backlog": the claim's cost against a large table. One client, sequential single claims
 * (limit 1), each followed by a complete; the first --warmup are not counted.
 *
 * Options: --count (300), --warmup (50), --queue, --label. Output: RESULT backlog.
 */
final class Backlog {
    private Backlog() {
    }

    static void run() throws Exception {
        int count = intOpt("count", 300);
        int warmup = intOpt("warmup", 50);
        String queue = Opts.get("queue", "backlog");
        String label = Opts.get("label", "backlog");
        String claimBody = "{\"workerId\":\"backlog-w\",\"queues\":[\"" + queue + "\"],\"limit\":1,\"leaseSeconds\":60}";
        List<Long> claimNs = new ArrayList<>();
        List<Long> completeNs = new ArrayList<>();
        for (int i = 0; i < warmup + count; i++) {
            long c0 = System.nanoTime();
            JsonNode jobs = post("/claim", claimBody, 200).path("jobs");
            long c1 = System.nanoTime();
            if (jobs.size() != 1) {
                throw new IllegalStateException("claim " + i + " returned " + jobs.size() + " jobs");
            }
            JsonNode j = jobs.get(0);
            post("/jobs/" + j.path("id").asText() + "/complete", "{\"leaseId\":\"" + j.path("leaseId").asText() + "\"}",
                    200);
            long c2 = System.nanoTime();
            if (i >= warmup) {
                claimNs.add(c1 - c0);
                completeNs.add(c2 - c1);
            }
        }
        System.out.printf(Locale.ROOT,
                "RESULT backlog label=%s claims=%d warmup=%d claim_ms_p50=%.3f claim_ms_mean=%.3f claim_ms_p99=%.3f"
                        + " complete_ms_p50=%.3f complete_ms_mean=%.3f%n",
                label, claimNs.size(), warmup, pct(claimNs, 50) / 1e6, mean(claimNs) / 1e6, pct(claimNs, 99) / 1e6,
                pct(completeNs, 50) / 1e6, mean(completeNs) / 1e6);
    }
}
