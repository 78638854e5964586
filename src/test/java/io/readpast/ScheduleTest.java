package io.readpast;

import io.readpast.testsupport.TestDb;
import io.readpast.testsupport.Jobs;
import io.quarkus.test.junit.QuarkusTest;
import io.readpast.core.ScheduleFirer;
import io.readpast.core.ScheduleFiring;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Recurring schedules through HTTP, firing against the real database, several firers racing. */
@QuarkusTest
class ScheduleTest {

    /** In process only: null against the packaged artifact (the tests that need it are disabled there). */
    ScheduleFiring sweeper = TestDb.bean(ScheduleFiring.class);


    @BeforeEach
    void clean() {
        TestDb.clean();
    }

    static JsonPath put(String name, Map<String, Object> body) {
        return given().contentType(ContentType.JSON).body(body)
                .when().put("/schedules/" + name)
                .then().statusCode(200).contentType(ContentType.JSON).extract().jsonPath();
    }

    static Map<String, Object> schedule(String cron, String queue, Object... more) {
        Map<String, Object> body = new HashMap<>();
        body.put("cron", cron);
        body.put("job", Map.of("queue", queue, "type", "tick", "payload", Map.of("n", 1)));
        for (int i = 0; i < more.length; i += 2) {
            body.put((String) more[i], more[i + 1]);
        }
        return body;
    }

    static long jobsOf(String schedule) {
        return TestDb.count("SELECT count(*) FROM readpast_job WHERE created_by = ?", "schedule:" + schedule);
    }

    static long distinctSlotsOf(String schedule) {
        return TestDb.count("SELECT count(DISTINCT due_at) FROM readpast_job WHERE created_by = ?", "schedule:" + schedule);
    }

    static long firesOf(String schedule, int outcome) {
        return TestDb.count("SELECT count(*) FROM readpast_schedule_fire WHERE schedule_name = ? AND outcome = ?",
                schedule, outcome);
    }

    /** Moves a schedule's next slot (as if every instance had been down since then) and unpauses it. */
    static void rewind(String schedule, Instant nextFireAt) {
        assertEquals(1, TestDb.exec("UPDATE readpast_schedule SET next_fire_at = ?, paused = ? WHERE name = ?",
                TestDb.time(nextFireAt), false, schedule));
    }

    @Test
    void putReturnsTheScheduleWithItsNextFireTimesAndListShowsIt() {
        JsonPath s = put("weekday-report", schedule("0 6 * * MON-FRI", "reports", "timeZone", "Europe/Paris",
                "overlap", "SKIP"));
        assertEquals("weekday-report", s.getString("name"));
        assertEquals("0 6 * * MON-FRI", s.getString("cron"));
        assertEquals("Europe/Paris", s.getString("timeZone"));
        assertEquals("SKIP", s.getString("overlap"));
        assertEquals("LATEST", s.getString("catchUp"));
        assertEquals("reports", s.getString("job.queue"));
        assertEquals(1, s.getInt("job.payload.n"));
        List<String> upcoming = s.getList("upcoming");
        assertEquals(5, upcoming.size());
        assertEquals(s.getString("nextFireAt"), upcoming.get(0));
        Instant previous = Instant.EPOCH;
        for (String u : upcoming) {
            Instant t = Instant.parse(u);
            assertTrue(t.isAfter(previous), "upcoming fire times increase");
            var local = t.atZone(java.time.ZoneId.of("Europe/Paris"));
            assertEquals(6, local.getHour(), "06:00 Paris time: " + u);
            assertTrue(local.getDayOfWeek().getValue() <= 5, "a weekday: " + u);
            previous = t;
        }
        given().when().get("/schedules/weekday-report").then().statusCode(200)
                .body("nextFireAt", equalTo(s.getString("nextFireAt"))).body("lastFireAt", nullValue());
        put("a-first", schedule("@daily", "reports"));
        given().when().get("/schedules?limit=1").then().statusCode(200)
                .body("schedules", hasSize(1)).body("schedules[0].name", equalTo("a-first")).body("next", equalTo("a-first"));
        given().when().get("/schedules?after=a-first").then().statusCode(200)
                .body("schedules.name", hasItem("weekday-report")).body("next", nullValue());
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it drives the in-process schedule sweeper")
    void everySecondScheduleEnqueuesOneJobPerSlotUntilPaused() {
        put("tick", schedule("* * * * * *", "ticks"));
        await().atMost(Duration.ofSeconds(20)).until(() -> jobsOf("tick") >= 3);
        given().when().post("/schedules/tick/pause").then().statusCode(200)
                .body("paused", equalTo(true)).body("nextFireAt", nullValue()).body("upcoming", hasSize(0));
        long jobs = jobsOf("tick");
        // a pass that had the schedule locked finished before the pause could commit: nothing fires after it
        sweeper.runOnce();
        assertEquals(jobs, jobsOf("tick"), "a paused schedule fires nothing");
        assertEquals(jobs, distinctSlotsOf("tick"), "one job per slot");
        assertEquals(jobs, firesOf("tick", 1));
        JsonPath page = given().when().get("/jobs?queue=ticks&limit=500").then().statusCode(200).extract().jsonPath();
        for (Map<String, Object> job : page.<Map<String, Object>>getList("jobs")) {
            assertEquals("tick", job.get("type"));
            assertEquals("schedule:tick", job.get("createdBy"));
            assertEquals(0, Instant.parse((String) job.get("runAt")).getNano(), "due at its whole-second slot");
        }
        JsonPath s = given().when().get("/schedules/tick").then().statusCode(200).extract().jsonPath();
        assertNotEquals(null, s.getString("lastFireAt"));
        assertNotEquals(null, s.getString("lastJobId"));

        JsonPath resumed = given().when().post("/schedules/tick/resume").then().statusCode(200)
                .body("paused", equalTo(false)).body("nextFireAt", notNullValue()).extract().jsonPath();
        assertTrue(Instant.parse(resumed.getString("nextFireAt")).isAfter(Instant.parse(s.getString("lastFireAt"))));
        await().atMost(Duration.ofSeconds(20)).until(() -> jobsOf("tick") > jobs);
    }

    @Test
    void overlapSkipWaitsForThePreviousJob() {
        put("single", schedule("* * * * * *", "single-q", "overlap", "SKIP"));
        await().atMost(Duration.ofSeconds(20)).until(() -> firesOf("single", 2) >= 2);
        assertEquals(1, jobsOf("single"), "slots are skipped while the first job is pending");
        JsonPath c = Jobs.claim(Map.of("workerId", "w", "queues", List.of("single-q")));
        given().contentType(ContentType.JSON).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .when().post("/jobs/" + c.getString("jobs[0].id") + "/complete").then().statusCode(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> jobsOf("single") == 1
                && TestDb.count("SELECT count(*) FROM readpast_job_archive WHERE created_by = 'schedule:single'") == 1);
        given().when().post("/schedules/single/pause").then().statusCode(200);
        assertEquals(1, jobsOf("single"), "one live job at a time");
        assertEquals(2, firesOf("single", 1));
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it drives the in-process schedule sweeper")
    void missedSlotsAreCaughtUpByPolicy() {
        for (String policy : List.of("ALL", "LATEST", "NONE")) {
            put("minutely-" + policy, schedule("0 * * * * *", "catch-up", "catchUp", policy, "paused", true));
        }
        Instant now = TestDb.dbNow();
        Instant t0 = now.truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(10));
        for (String policy : List.of("ALL", "LATEST", "NONE")) {
            rewind("minutely-" + policy, t0);
        }
        sweeper.runOnce();
        // the instance's own timer task may have taken a schedule first (runOnce then skips the
        // row it holds): wait until every one of them is past its missed slots, whoever fired it
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDb.count(
                "SELECT count(*) FROM readpast_schedule WHERE name LIKE 'minutely-%' AND next_fire_at > ?",
                TestDb.time(now)) == 3);
        // ALL: every slot from t0 to the last one fired (at least the 11 up to now)
        JsonPath all = given().when().get("/schedules/minutely-ALL").then().statusCode(200).extract().jsonPath();
        Instant last = Instant.parse(all.getString("lastFireAt"));
        long slots = Duration.between(t0, last).toMinutes() + 1;
        assertTrue(slots >= 11, "slots from " + t0 + " to " + last);
        assertEquals(slots, jobsOf("minutely-ALL"));
        assertEquals(slots, distinctSlotsOf("minutely-ALL"));
        assertTrue(Instant.parse(all.getString("nextFireAt")).isAfter(now));
        // LATEST: the most recent missed slot (more than a minute late) and the one on time
        assertEquals(2, jobsOf("minutely-LATEST"));
        assertEquals(2, distinctSlotsOf("minutely-LATEST"));
        // NONE: only the slot on time
        assertEquals(1, jobsOf("minutely-NONE"));
        Instant onTime = Instant.parse(given().when().get("/schedules/minutely-NONE").then().statusCode(200)
                .extract().path("lastFireAt"));
        assertTrue(!onTime.isBefore(now.minus(Duration.ofMinutes(1))), "the slot fired by NONE is on time: " + onTime);
    }

    @Test
    void replacingKeepsTheNextSlotUnlessTheExpressionChanges() {
        JsonPath first = put("keep", schedule("0 0 1 1 *", "q"));
        TestDb.exec("UPDATE readpast_schedule SET next_fire_at = ? WHERE name = ?",
                TestDb.time(Instant.parse("2099-01-01T00:00:00Z")), "keep");
        JsonPath same = put("keep", schedule("0 0 1 1 *", "q2", "overlap", "SKIP"));
        assertEquals("2099-01-01T00:00:00Z", same.getString("nextFireAt"));
        assertEquals("q2", same.getString("job.queue"));
        JsonPath changed = put("keep", schedule("0 0 1 7 *", "q2"));
        assertNotEquals("2099-01-01T00:00:00Z", changed.getString("nextFireAt"));
        assertTrue(changed.getString("nextFireAt").contains("-07-01T00:00:00Z"), changed.getString("nextFireAt"));
        assertEquals(first.getString("createdAt"), changed.getString("createdAt"));
    }

    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it drives the in-process schedule sweeper")
    void deleteRemovesTheScheduleAndItsFireRecords() {
        put("gone", schedule("* * * * * *", "gone-q"));
        await().atMost(Duration.ofSeconds(20)).until(() -> firesOf("gone", 1) >= 1);
        given().when().delete("/schedules/gone").then().statusCode(204);
        long jobs = jobsOf("gone");
        given().when().get("/schedules/gone").then().statusCode(404)
                .contentType("application/problem+json").body("detail", equalTo("No schedule named 'gone'."));
        given().when().delete("/schedules/gone").then().statusCode(404);
        given().when().post("/schedules/gone/pause").then().statusCode(404);
        assertEquals(0, TestDb.count("SELECT count(*) FROM readpast_schedule_fire WHERE schedule_name = 'gone'"));
        sweeper.runOnce();
        assertEquals(jobs, jobsOf("gone"), "jobs it enqueued stay, nothing new fires");
    }

    /**
     * Several firers (as several broker instances would run) race over schedules that missed many
     * slots, next to the sweeper this instance runs anyway: every slot enqueues exactly one job.
     * Then the schedules are rewound over slots already fired: the unique key refuses them all.
     */
    @Test
    @io.quarkus.test.junit.DisabledOnIntegrationTest("it drives the in-process schedule sweeper")
    void racingFirersFireEverySlotExactlyOnce() throws Exception {
        int schedules = 6;
        for (int i = 0; i < schedules; i++) {
            put("race-" + i, schedule("* * * * * *", "race", "catchUp", "ALL", "paused", true));
        }
        Instant start = TestDb.dbNow().truncatedTo(ChronoUnit.SECONDS);
        Instant t0 = start.minus(Duration.ofSeconds(250));
        for (int i = 0; i < schedules; i++) {
            rewind("race-" + i, t0);
        }
        List<ScheduleFirer> firers = List.of(sweeper.newFirer(), sweeper.newFirer(), sweeper.newFirer(), sweeper.newFirer());
        ExecutorService pool = Executors.newFixedThreadPool(firers.size());
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            List<Future<Integer>> runs = new ArrayList<>();
            for (ScheduleFirer f : firers) {
                runs.add(pool.submit(() -> {
                    int fired = 0;
                    while (System.nanoTime() < deadline && TestDb.count(
                            "SELECT count(*) FROM readpast_schedule WHERE name LIKE 'race-%' AND next_fire_at <= ?",
                            TestDb.time(start)) > 0) {
                        fired += f.runOnce();
                    }
                    return fired;
                }));
            }
            int byRacers = 0;
            for (Future<Integer> r : runs) {
                byRacers += r.get();
            }
            assertTrue(byRacers > 0, "the racing firers fired slots");
        } finally {
            pool.shutdownNow();
        }
        for (int i = 0; i < schedules; i++) {
            given().when().post("/schedules/race-" + i + "/pause").then().statusCode(200);
        }
        for (int i = 0; i < schedules; i++) {
            String name = "race-" + i;
            long jobs = jobsOf(name);
            assertTrue(jobs >= 251, name + " fired every slot since " + t0 + ": " + jobs);
            assertEquals(jobs, distinctSlotsOf(name), name + ": no slot enqueued twice");
            assertEquals(jobs, firesOf(name, 1), name + ": one fire record per job");
            assertEquals(jobs, TestDb.count("SELECT count(*) FROM readpast_job WHERE created_by = ? AND due_at >= ?",
                    "schedule:" + name, TestDb.time(t0)));
        }

        // rewind race-0 over its fired slots: every one of them is refused by the unique key
        String name = "race-0";
        Instant last = Instant.parse(given().when().get("/schedules/" + name).then().extract().path("lastFireAt"));
        long before = jobsOf(name);
        rewind(name, t0);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && TestDb.count(
                "SELECT count(*) FROM readpast_schedule WHERE name = ? AND next_fire_at <= ?", name, TestDb.time(last)) > 0) {
            firers.get(0).runOnce();
        }
        given().when().post("/schedules/" + name + "/pause").then().statusCode(200);
        assertEquals(before, TestDb.count("SELECT count(*) FROM readpast_job WHERE created_by = ? AND due_at <= ?",
                "schedule:" + name, TestDb.time(last)), "slots fired before are not fired again");
        assertEquals(jobsOf(name), distinctSlotsOf(name));
    }

    @Test
    void badSchedulesGetA400AndChangeNothing() throws Exception {
        put("exists", schedule("@hourly", "q", "paused", true));
        String before = TestDb.snapshot();
        Map<String, String> job = Map.of("queue", "q", "type", "t");
        List<Object> bodies = new ArrayList<>();
        for (String cron : List.of("", "* * * *", "61 * * * *", "* * * * * * *", "*/0 * * * *", "5-1 * * * *",
                "0 0 30 2 *", "@sometimes", "x".repeat(201), "* * * * MON-XYZ", "1,,2 * * * *", "\u0000 * * * *")) {
            bodies.add(Map.of("cron", cron, "job", job));
        }
        bodies.add(Map.of("job", job));
        bodies.add(Map.of("cron", "@daily"));
        bodies.add(Map.of("cron", 5, "job", job));
        bodies.add(Map.of("cron", "@daily", "job", job, "timeZone", "Mars/Olympus"));
        bodies.add(Map.of("cron", "@daily", "job", job, "timeZone", ""));
        bodies.add(Map.of("cron", "@daily", "job", job, "timeZone", "x".repeat(101)));
        bodies.add(Map.of("cron", "@daily", "job", job, "overlap", "SOMETIMES"));
        bodies.add(Map.of("cron", "@daily", "job", job, "overlap", "skip"));
        bodies.add(Map.of("cron", "@daily", "job", job, "catchUp", "MOST"));
        bodies.add(Map.of("cron", "@daily", "job", job, "paused", "yes"));
        bodies.add(Map.of("cron", "@daily", "job", job, "extra", 1));
        bodies.add(Map.of("cron", "@daily", "job", Map.of("queue", "bad name", "type", "t")));
        bodies.add(Map.of("cron", "@daily", "job", Map.of("queue", "q")));
        bodies.add(Map.of("cron", "@daily", "job", Map.of("queue", "q", "type", "t", "maxAttempts", 0)));
        bodies.add(Map.of("cron", "@daily", "job", Map.of("queue", "q", "type", "t", "tags", List.of(""))));
        bodies.add(Map.of("cron", "@daily", "job", Map.of("queue", "q", "type", "t", "unknown", 1)));
        bodies.add(Map.of("cron", "@daily", "job", Map.of("queue", "q", "type", "t",
                "payload", Map.of("big", "x".repeat(1_100_000)))));
        bodies.add(Map.of("cron", "@daily", "job", "q"));
        bodies.add("{");
        bodies.add("[]");
        for (Object body : bodies) {
            given().contentType(ContentType.JSON).body(body).when().put("/schedules/exists")
                    .then().statusCode(400).contentType("application/problem+json").body("detail", notNullValue());
        }
        for (String name : List.of("bad%20name", "x".repeat(101), "-lead", "a%27b")) {
            given().contentType(ContentType.JSON).body(schedule("@daily", "q")).when().put("/schedules/" + name)
                    .then().statusCode(400).contentType("application/problem+json");
            given().when().get("/schedules/" + name).then().statusCode(400);
            given().when().delete("/schedules/" + name).then().statusCode(400);
        }
        for (String qs : List.of("limit=0", "limit=501", "limit=x", "after=%20")) {
            given().when().get("/schedules?" + qs).then().statusCode(400).contentType("application/problem+json");
        }
        given().contentType("text/plain").body("cron").when().put("/schedules/exists").then().statusCode(415);
        assertEquals(before, TestDb.snapshot(), "the database is unchanged");
        given().when().get("/schedules/exists").then().statusCode(200).body("cron", equalTo("@hourly"));
    }
}
