package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Jobs;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Generated bad requests across every endpoint: each gets a 4xx problem+json with a useful
 * detail, never a 5xx or a stack trace, and the database is unchanged afterwards.
 */
@QuarkusTest
class HostileInputTest {

    @TestHTTPResource("/")
    URI base;

    record Bad(String method, String path, String contentType, byte[] body, String why) {
        static Bad json(String method, String path, String body, String why) {
            return new Bad(method, path, "application/json", body == null ? null : body.getBytes(StandardCharsets.UTF_8), why);
        }
    }

    static final String LEASE = "00000000-0000-4000-8000-000000000000";

    /** Valid bodies per endpoint; the generator breaks them in many ways. */
    static Map<String, String> validBodies(String id, String lease) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("POST /jobs", "{\"queue\":\"hq\",\"type\":\"t\",\"payload\":{\"a\":1},\"priority\":1,\"tags\":[\"x\"],\"maxAttempts\":3}");
        m.put("POST /jobs/batch", "{\"jobs\":[{\"queue\":\"hq\",\"type\":\"t\"}]}");
        m.put("POST /claim", "{\"workerId\":\"w\",\"queues\":[\"hq\"],\"limit\":1,\"leaseSeconds\":30}");
        m.put("POST /jobs/" + id + "/heartbeat", "{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":30,\"progress\":{\"percent\":5,\"message\":\"m\"}}");
        m.put("POST /jobs/" + id + "/complete", "{\"leaseId\":\"" + lease + "\",\"result\":{\"r\":1}}");
        m.put("POST /jobs/" + id + "/fail", "{\"leaseId\":\"" + lease + "\",\"error\":\"e\",\"retryable\":true,\"retryAfterSeconds\":5}");
        m.put("POST /jobs/" + id + "/release", "{\"leaseId\":\"" + lease + "\"}");
        m.put("POST /jobs/complete", "{\"items\":[{\"id\":\"" + id + "\",\"leaseId\":\"" + lease + "\"}]}");
        m.put("PUT /queues/hq", "{\"maxWorkers\":2,\"paused\":false,\"active\":true,\"leaseSeconds\":30,\"maxAttempts\":3,"
                + "\"backoffBaseSeconds\":1,\"backoffCapSeconds\":10}");
        return m;
    }

    List<Bad> generate(String pendingId, String leasedId, String deadId) {
        List<Bad> bad = new ArrayList<>();
        // 1. every JSON body broken: truncated, malformed, wrong top-level shapes
        for (var e : validBodies(leasedId, LEASE).entrySet()) {
            String[] mp = e.getKey().split(" ", 2);
            String body = e.getValue();
            for (int cut : new int[] {1, body.length() / 3, body.length() / 2, body.length() - 1}) {
                bad.add(Bad.json(mp[0], mp[1], body.substring(0, cut), "truncated at " + cut));
            }
            for (String junk : List.of("", "{", "}", "[]", "null", "42", "\"text\"", "{\"a\":}", "{'single':'quotes'}",
                    body + "garbage", "{\"__proto__\":1}", "\u0000\u0001")) {
                bad.add(Bad.json(mp[0], mp[1], junk, "malformed: " + junk));
            }
            bad.add(new Bad(mp[0], mp[1], "text/plain", body.getBytes(StandardCharsets.UTF_8), "wrong content type"));
            bad.add(new Bad(mp[0], mp[1], "application/xml", "<job/>".getBytes(StandardCharsets.UTF_8), "xml"));
        }
        // 2. wrong types, missing fields, out-of-range values, field by field (the enqueue's shared with the SQL enqueue)
        for (String body : io.readpast.testsupport.EnqueueCases.badBodies()) {
            bad.add(Bad.json("POST", "/jobs", body, "enqueue " + abbreviate(body)));
        }
        for (String name : io.readpast.testsupport.EnqueueCases.badNames()) {
            bad.add(Bad.json("POST", "/claim", "{\"workerId\":\"w\",\"queues\":[\"" + name + "\"]}", "claim queue " + abbreviate(name)));
        }
        for (String f : List.of("", "\"workerId\":\"\"", "\"workerId\":5", "\"workerId\":\"w\\u0001\"",
                "\"workerId\":\"" + "w".repeat(201) + "\"", "\"workerId\":\"w\",\"limit\":0", "\"workerId\":\"w\",\"limit\":-1",
                "\"workerId\":\"w\",\"limit\":1001", "\"workerId\":\"w\",\"limit\":2147483648", "\"workerId\":\"w\",\"limit\":\"10\"",
                "\"workerId\":\"w\",\"leaseSeconds\":0", "\"workerId\":\"w\",\"leaseSeconds\":-5",
                "\"workerId\":\"w\",\"leaseSeconds\":86401", "\"workerId\":\"w\",\"leaseSeconds\":1e10",
                "\"workerId\":\"w\",\"queues\":[]", "\"workerId\":\"w\",\"queues\":\"hq\"", "\"workerId\":\"w\",\"queues\":[null]",
                "\"workerId\":\"w\",\"waitForever\":true")) {
            bad.add(Bad.json("POST", "/claim", "{" + f + "}", "claim " + abbreviate(f)));
        }
        for (String action : List.of("heartbeat", "complete", "fail", "release")) {
            String p = "/jobs/" + leasedId + "/" + action;
            for (String f : List.of("{}", "{\"leaseId\":\"\"}", "{\"leaseId\":\"nope\"}", "{\"leaseId\":5}",
                    "{\"leaseId\":\"" + LEASE + "' OR '1'='1\"}", "{\"leaseId\":null}")) {
                bad.add(Bad.json("POST", p, f, action + " lease " + abbreviate(f)));
            }
            // ids that do not exist or do not parse
            for (String id : List.of("0", "-1", "abc", "1.5", "99999999999999999999999", "%27%20OR%201%3D1", "987654321")) {
                bad.add(Bad.json("POST", "/jobs/" + id + "/" + action, "{\"leaseId\":\"" + LEASE + "\"}", action + " id " + id));
            }
        }
        bad.add(Bad.json("POST", "/jobs/" + leasedId + "/heartbeat", "{\"leaseId\":\"" + LEASE + "\",\"leaseSeconds\":0}", "hb lease 0"));
        bad.add(Bad.json("POST", "/jobs/" + leasedId + "/heartbeat", "{\"leaseId\":\"" + LEASE + "\",\"progress\":{\"percent\":101}}", "percent"));
        bad.add(Bad.json("POST", "/jobs/" + leasedId + "/heartbeat", "{\"leaseId\":\"" + LEASE + "\",\"progress\":\"half\"}", "progress type"));
        bad.add(Bad.json("POST", "/jobs/" + leasedId + "/fail", "{\"leaseId\":\"" + LEASE + "\",\"retryable\":\"no\"}", "retryable type"));
        bad.add(Bad.json("POST", "/jobs/" + leasedId + "/fail", "{\"leaseId\":\"" + LEASE + "\",\"retryAfterSeconds\":-1}", "retryAfter"));
        bad.add(Bad.json("POST", "/jobs/" + leasedId + "/fail", "{\"leaseId\":\"" + LEASE + "\",\"error\":\"a\\u0000b\"}", "NUL in error"));
        bad.add(Bad.json("POST", "/jobs/" + leasedId + "/heartbeat", "{\"leaseId\":\"" + LEASE + "\",\"progress\":{\"message\":\"a\\u0000b\"}}", "NUL in progress"));
        bad.add(Bad.json("POST", "/jobs/" + leasedId + "/fail", "{\"leaseId\":\"" + LEASE + "\",\"error\":\"" + "e".repeat(10_001) + "\"}", "long error"));
        // batches: empty, oversized, wrong shapes
        StringBuilder big = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < 1001; i++) {
            big.append(i == 0 ? "" : ",").append("{\"queue\":\"hq\",\"type\":\"t\"}");
        }
        bad.add(Bad.json("POST", "/jobs/batch", big.append("]}").toString(), "batch of 1001"));
        bad.add(Bad.json("POST", "/jobs/batch", "{\"jobs\":[]}", "empty batch"));
        bad.add(Bad.json("POST", "/jobs/batch", "{\"jobs\":{}}", "batch not a list"));
        bad.add(Bad.json("POST", "/jobs/batch", "{}", "batch missing"));
        bad.add(Bad.json("POST", "/jobs/complete", "{\"items\":[]}", "empty ack"));
        bad.add(Bad.json("POST", "/jobs/complete", "{\"items\":7}", "ack not a list"));
        // queues
        for (String f : List.of("{\"maxWorkers\":-1}", "{\"maxWorkers\":\"5\"}", "{\"paused\":\"yes\"}", "{\"leaseSeconds\":0}",
                "{\"maxAttempts\":0}", "{\"backoffBaseSeconds\":-1}", "{\"backoffCapSeconds\":99999999999}", "{\"name\":\"x\"}")) {
            bad.add(Bad.json("PUT", "/queues/hq", f, "queue " + f));
        }
        bad.add(Bad.json("PUT", "/queues/bad%20name", "{}", "queue name with space"));
        bad.add(Bad.json("PUT", "/queues/" + "x".repeat(201), "{}", "queue name too long"));
        bad.add(Bad.json("POST", "/queues/bad%27name/pause", null, "pause bad name"));
        bad.add(Bad.json("GET", "/queues/bad%00name", null, "get bad name"));
        // operators: states that do not allow the operation, ids that do not exist
        bad.add(Bad.json("POST", "/jobs/" + pendingId + "/requeue", "{}", "requeue a pending job"));
        bad.add(Bad.json("DELETE", "/jobs/" + pendingId, null, "delete a pending job"));
        bad.add(Bad.json("POST", "/jobs/" + deadId + "/cancel", null, "cancel a dead job"));
        bad.add(Bad.json("POST", "/jobs/" + deadId + "/requeue", "{\"payload\":{\"big\":\"" + "x".repeat(1_100_000) + "\"}}", "requeue oversized"));
        bad.add(Bad.json("POST", "/jobs/" + deadId + "/requeue", "{\"payload\":1,\"extra\":2}", "requeue unknown field"));
        for (String id : List.of("0", "abc", "987654321", "-5")) {
            bad.add(Bad.json("GET", "/jobs/" + id, null, "get id " + id));
            bad.add(Bad.json("POST", "/jobs/" + id + "/cancel", null, "cancel id " + id));
            bad.add(Bad.json("POST", "/jobs/" + id + "/requeue", "{}", "requeue id " + id));
            bad.add(Bad.json("DELETE", "/jobs/" + id, null, "delete id " + id));
        }
        for (String qs : List.of("limit=0", "limit=-1", "limit=501", "limit=abc", "after=-1", "after=x", "status=DONE",
                "status=PENDING,NOPE", "queue=bad%20q", "type=bad%20t", "tag=" + "t".repeat(101))) {
            bad.add(Bad.json("GET", "/jobs?" + qs, null, "browse " + abbreviate(qs)));
        }
        for (String qs : List.of("limit=0", "limit=9999", "after=zz", "queue=%27")) {
            bad.add(Bad.json("GET", "/dead-letters?" + qs, null, "dead letters " + qs));
        }
        for (String qs : List.of("minutes=0", "minutes=1441", "minutes=x", "minutes=2.5", "queue=bad%20q", "queue=%27")) {
            bad.add(Bad.json("GET", "/stats/throughput?" + qs, null, "throughput " + qs));
        }
        // wrong methods and paths
        for (String mp : List.of("PUT /claim", "GET /claim", "DELETE /jobs/batch", "PATCH /jobs", "GET /jobs/complete",
                "PUT /jobs/" + pendingId, "DELETE /queues/hq", "POST /queues", "POST /dead-letters", "GET /nowhere",
                "POST /me", "DELETE /stats/throughput")) {
            String[] p = mp.split(" ", 2);
            bad.add(Bad.json(p[0], p[1], "{}", "method/path " + mp));
        }
        return bad;
    }

    static String abbreviate(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    @Test
    void everyBadRequestGetsAUseful4xxAndChangesNothing() throws Exception {
        TestDb.clean();
        String pending = Jobs.enqueue(Map.of("queue", "hq", "type", "t", "delaySeconds", 3600));
        String leased = Jobs.enqueue(Map.of("queue", "hq2", "type", "t"));
        Jobs.claim(Map.of("workerId", "w", "queues", List.of("hq2"), "leaseSeconds", 600));
        String dead = Jobs.enqueue(Map.of("queue", "hq3", "type", "t"));
        var c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("hq3")));
        io.restassured.RestAssured.given().contentType("application/json")
                .body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "retryable", false))
                .post("/jobs/" + dead + "/fail").then().statusCode(200);

        String before = snapshot();
        List<Bad> bad = generate(pending, leased, dead);
        assertTrue(bad.size() >= 200, "at least 200 bad requests, got " + bad.size());
        HttpClient client = HttpClient.newHttpClient();
        List<String> failures = new ArrayList<>();
        Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        for (Bad b : bad) {
            HttpRequest.Builder rb = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + b.path()))
                    .timeout(Duration.ofSeconds(30))
                    .method(b.method(), b.body() == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(b.body()));
            if (b.contentType() != null && b.body() != null) {
                rb.header("Content-Type", b.contentType());
            }
            HttpResponse<String> r;
            try {
                r = client.send(rb.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IllegalArgumentException e) {
                continue; // the client itself refuses (e.g. an unencodable path): nothing reached the broker
            }
            statuses.merge(r.statusCode(), 1, Integer::sum);
            String ct = r.headers().firstValue("Content-Type").orElse("");
            String body = r.body();
            String problem = b.why() + " -> " + r.statusCode() + " " + ct + " " + abbreviate(body);
            if (r.statusCode() < 400 || r.statusCode() >= 500) {
                failures.add("not a 4xx: " + problem);
            } else if (!ct.startsWith("application/problem+json")) {
                failures.add("not problem+json: " + problem);
            } else if (!body.contains("\"detail\":\"") || body.contains("\"detail\":\"\"")) {
                failures.add("no useful detail: " + problem);
            } else if (body.contains("Exception") || body.contains("\tat ") || body.contains(".java:")) {
                failures.add("stack trace: " + problem);
            }
        }
        System.out.printf("hostile input: %d requests, statuses %s%n", bad.size(), statuses);
        if (!failures.isEmpty()) {
            fail(failures.size() + " bad answers:\n" + String.join("\n", failures));
        }
        assertEquals(before, snapshot(), "the database is unchanged");
    }

    /** Row counts and a digest of every row of every Readpast table. */
    static String snapshot() throws Exception {
        StringBuilder out = new StringBuilder();
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (Connection c = TestDb.dataSource().getConnection(); Statement s = c.createStatement()) {
            for (String t : List.of("readpast_job", "readpast_job_archive", "readpast_job_dead", "readpast_queue")) {
                int rows = 0;
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + t + " ORDER BY 1")) {
                    ResultSetMetaData md2 = rs.getMetaData();
                    while (rs.next()) {
                        rows++;
                        for (int i = 1; i <= md2.getColumnCount(); i++) {
                            md.update(String.valueOf(rs.getObject(i)).getBytes(StandardCharsets.UTF_8));
                            md.update((byte) 0);
                        }
                    }
                }
                out.append(t).append('=').append(rows).append(' ');
            }
        }
        return out.append(HexFormat.of().formatHex(md.digest())).toString();
    }
}
