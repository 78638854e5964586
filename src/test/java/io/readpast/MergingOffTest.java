package io.readpast;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.readpast.testsupport.Http;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * readpast.merging.* set to false turns each kind of merging off: concurrent enqueues, claims,
 * completions, releases and failure reports each run on their own (GET /stats/merging counts
 * nothing merged), and every one is answered as with merging on.
 */
@QuarkusTest
@TestProfile(MergingOffTest.Off.class)
class MergingOffTest {

    public static class Off implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("readpast.merging.enqueues", "false", "readpast.merging.claims", "false",
                    "readpast.merging.acks", "false");
        }
    }

    @TestHTTPResource("/")
    URI base;

    Http http;

    @BeforeEach
    void setUp() {
        TestDb.clean();
        http = new Http(base);
    }

    @Test
    void concurrentRequestsEachRunAloneAndAreAnsweredAsMerged() throws Exception {
        int n = 48;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<Http.Reply>> enqueued = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                enqueued.add(pool.submit(() -> http.post("/jobs", Map.of("queue", "unmerged", "type", "t"))));
            }
            for (Future<Http.Reply> f : enqueued) {
                assertEquals(201, f.get(60, TimeUnit.SECONDS).status());
            }
            List<Future<Http.Reply>> claims = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                String worker = "u" + w;
                claims.add(pool.submit(() -> http.post("/claim", Map.of("workerId", worker, "queues", List.of("unmerged"),
                        "limit", n / 8))));
            }
            List<JsonNode> jobs = new ArrayList<>();
            for (Future<Http.Reply> f : claims) {
                f.get(60, TimeUnit.SECONDS).body().get("jobs").forEach(jobs::add);
            }
            if (!TestDb.skipsLockedRows()) {
                // Babelfish ignores READPAST: a claim that waited for another's rows finds them
                // taken and answers fewer; there the rest are claimed one claim after another
                // (where rows are skipped, the concurrent claims take every job, as asserted)
                while (jobs.size() < n) {
                    Http.Reply more = http.post("/claim", Map.of("workerId", "u-rest", "queues", List.of("unmerged"),
                            "limit", n - jobs.size()));
                    if (more.body().get("jobs").isEmpty()) {
                        break;
                    }
                    more.body().get("jobs").forEach(jobs::add);
                }
            }
            assertEquals(n, jobs.size(), "every job claimed once");
            assertEquals(n, jobs.stream().map(j -> j.get("id").asText()).distinct().count(), "no job claimed twice");
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Http.Reply>> acks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                JsonNode job = jobs.get(i);
                String path = "/jobs/" + job.get("id").asText() + (i % 3 == 0 ? "/complete" : i % 3 == 1 ? "/release" : "/fail");
                acks.add(pool.submit(() -> {
                    go.await();
                    return http.post(path, Map.of("leaseId", job.get("leaseId").asText()));
                }));
            }
            go.countDown();
            for (int i = 0; i < n; i++) {
                Http.Reply r = acks.get(i).get(60, TimeUnit.SECONDS);
                assertEquals(200, r.status(), r.toString());
                assertEquals(i % 3 == 0 ? "SUCCEEDED" : "PENDING", r.body().get("status").asText(), r.toString());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(n / 3, TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE queue = 'unmerged'"));
        assertEquals(n - n / 3, TestDb.count("SELECT count(*) FROM readpast_job WHERE queue = 'unmerged' AND lease_id IS NULL"));
        JsonNode stats = http.send("GET", "/stats/merging", null, Duration.ofSeconds(10)).body();
        for (String kind : List.of("enqueues", "claims", "acks")) {
            assertEquals(0, stats.get(kind).get("requests").asLong(), kind + " merged nothing: " + stats);
        }
    }
}
