package io.readpast.ui;

import io.readpast.testsupport.Jobs;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.readpast.testsupport.TestDb;
import io.readpast.config.Engine;
import io.readpast.security.ApiKeys;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import org.jboss.logmanager.ExtHandler;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dashboard in a real browser: Debian's chromium, headless, driven through chromium-driver.
 * Logs in with an API key, watches a job go from PENDING to SUCCEEDED while a worker (this test,
 * over HTTP) works it, reads its errors per attempt, requeues a dead job, pauses and resumes a
 * queue, sees the 403 areas of a producer key, and checks that the key never shows up in a URL,
 * the page or the broker's log. Screenshots go to target/ui-screenshots/.
 *
 * <p>Runs only with {@code -Pui} (or READPAST_UI_TESTS set): it needs {@code chromium} and
 * {@code chromium-driver} installed (paths overridable with -Dreadpast.ui.chromium and
 * -Dreadpast.ui.chromedriver).
 */
@QuarkusTest
@TestProfile(DashboardBrowserTest.UiKeys.class)
class DashboardBrowserTest {

    static final String ADMIN = "rp_ui-admin-0123456789abcdefghijklmnopqrstuvwxyz";
    static final String PRODUCER = "rp_ui-producer-0123456789abcdefghijklmnopqrstuvw";
    static final List<String> KEYS = List.of(ADMIN, PRODUCER);
    static final Path SHOTS = Path.of("target", "ui-screenshots");
    static final Duration WAIT = Duration.ofSeconds(20);

    public static class UiKeys implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("readpast.auth.enabled", "true", "readpast.auth.keys", String.join(",",
                    "ops:admin:" + ApiKeys.digestHex(ADMIN),
                    "shop:producer:" + ApiKeys.digestHex(PRODUCER)));
        }
    }

    /** Every log record written while this class runs. */
    static final ConcurrentLinkedQueue<String> LOGS = new ConcurrentLinkedQueue<>();
    static final ExtHandler CAPTURE = new ExtHandler() {
        @Override
        protected void doPublish(ExtLogRecord record) {
            LOGS.add(record.getFormattedMessage() + " " + record.getThrown());
        }
    };

    static WebDriver driver;
    static Path profile;
    /** Every URL the browser was seen at, and every URL the page fetched. */
    static final List<String> URLS = new ArrayList<>();

    @TestHTTPResource("/ui/")
    URL ui;

    WebDriverWait wait;

    @BeforeAll
    static void startBrowser() throws IOException {
        org.jboss.logmanager.Logger.getLogger("").addHandler(CAPTURE);
        Files.createDirectories(SHOTS);
        profile = Files.createTempDirectory("readpast-chromium");
        String chromium = System.getProperty("readpast.ui.chromium", "/usr/bin/chromium");
        String chromedriver = System.getProperty("readpast.ui.chromedriver", "/usr/bin/chromedriver");
        assertTrue(new File(chromium).canExecute() && new File(chromedriver).canExecute(),
                "the browser test needs " + chromium + " and " + chromedriver
                        + " (Debian: apt-get install chromium chromium-driver)");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium);
        // No network but this machine: keep chromium from calling home (updates, sync, QUIC probes).
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1366,900", "--user-data-dir=" + profile);
        // the page's console, read after every test: a session must log no error
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(chromedriver)).usingAnyFreePort().build();
        driver = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stopBrowser() throws IOException {
        try {
            if (driver != null) {
                driver.quit();
            }
        } finally {
            org.jboss.logmanager.Logger.getLogger("").removeHandler(CAPTURE);
            if (profile != null) {
                try (Stream<Path> files = Files.walk(profile)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    /** Console errors a test expects (substrings), e.g. the refused login of a wrong key. */
    final List<String> expectedConsoleErrors = new ArrayList<>();

    @BeforeEach
    void fresh() {
        driver.manage().window().setSize(new Dimension(1366, 900));
        TestDb.clean();
        wait = new WebDriverWait(driver, WAIT, Duration.ofMillis(100));
        // views re-render as they refresh: an element read a moment ago may be gone, so look again
        wait.ignoring(StaleElementReferenceException.class);
        // leave the previous test's page first: its refresh timers would otherwise fire with the
        // key just cleared (a 401 in the console, between the clear and the reload)
        driver.get("about:blank");
        driver.get(base());
        js("sessionStorage.clear(); localStorage.clear();");
        driver.navigate().refresh();
        waitVisible(By.id("login-key"));
        // what the console logged before this test's page is not this test's
        driver.manage().logs().get(LogType.BROWSER);
    }

    @AfterEach
    void theConsoleStayedClean() {
        List<String> errors = new ArrayList<>();
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()
                    && expectedConsoleErrors.stream().noneMatch(x -> e.getMessage().contains(x))) {
                errors.add(e.getMessage());
            }
        }
        assertEquals(List.of(), errors, "no error in the browser console");
    }

    @AfterEach
    void keyNeverLeaked() {
        record();
        @SuppressWarnings("unchecked")
        List<String> fetched = (List<String>) js("return performance.getEntries().map(e => e.name);");
        URLS.addAll(fetched);
        assertFalse(URLS.isEmpty());
        String page = driver.getPageSource();
        List<String> logs = new ArrayList<>(LOGS);
        for (String key : KEYS) {
            String part = key.substring(3, 20);
            for (String url : URLS) {
                assertFalse(url.contains(part), "an API key in a URL: " + url);
            }
            assertFalse(page.contains(part), "an API key in the page");
            for (String line : logs) {
                assertFalse(line.contains(part), "an API key in the log: " + line);
            }
        }
        assertEquals(0L, ((Number) js("return localStorage.length;")).longValue(), "nothing in localStorage");
    }

    // ---- the admin's tour ------------------------------------------------------------------------

    @Test
    void adminWatchesAJobSucceedAndRequeuesADeadOne() throws IOException {
        seedTraffic();
        String hostile = "<img src=x onerror=window.__xss=1>";
        String jobA = api(ADMIN).body(Map.of("queue", "ui-demo", "type", "send-mail",
                "payload", Map.of("to", "a@example.com", "note", hostile), "tags", List.of("welcome")))
                .post("/jobs").then().statusCode(201).extract().path("id");

        login(ADMIN);
        assertEquals(ADMIN, js("return sessionStorage.getItem('readpast.apiKey');"), "the key is in sessionStorage");
        assertEquals("ops", text(By.cssSelector("[data-test='who-name']")));
        By demoRow = By.cssSelector("[data-test='queue-row'][data-queue='ui-demo']");
        waitVisible(demoRow);
        waitVisible(By.cssSelector("[data-test='throughput-chart'] rect[data-kind='succeeded']"));
        assertEquals("1", driver.findElement(demoRow).findElement(By.cssSelector("[data-test='pending']")).getText());
        // what this instance merged (GET /stats/merging): the seeded traffic's enqueues among them
        String merging = text(By.cssSelector("[data-test='merging']"));
        assertTrue(merging.matches("This instance merged, since it started: enqueues [1-9][0-9,]* requests in [1-9][0-9,]* "
                + "statements · claims [0-9,]+ requests in [0-9,]+ statements · acks [0-9,]+ requests in [0-9,]+ "
                + "statements · [0-9,]+ long polls waiting now"), merging);
        // its tooltip says what "acks" counts (docs/how-it-works.md, "Merging")
        String mergingTitle = driver.findElement(By.cssSelector("[data-test='merging']")).getAttribute("title");
        assertTrue(mergingTitle.contains("acks are completions, releases, failures\u2019 retries and heartbeats"),
                mergingTitle);
        shot("01-queues");

        // the jobs browser pages with keyset cursors and filters by status
        By rows = By.cssSelector("[data-test='job-row']");
        driver.get(base() + "#/jobs?queue=webhooks");
        record();
        wait.until(ExpectedConditions.numberOfElementsToBe(rows, 50));
        shotOfWindow("02-jobs");
        driver.get(base() + "#/jobs?queue=emails");
        record();
        wait.until(ExpectedConditions.numberOfElementsToBe(rows, 50));
        List<Long> first = ids(rows);
        driver.findElement(By.cssSelector("[data-test='older']")).click();
        wait.until(d -> !ids(rows).isEmpty() && ids(rows).get(0) < first.get(49));
        assertEquals(50, ids(rows).size());
        driver.findElement(By.cssSelector("[data-test='newer']")).click();
        wait.until(d -> first.equals(ids(rows)));
        driver.findElement(By.cssSelector("[data-test='status-PENDING']")).click();
        driver.findElement(By.cssSelector("[data-test='filters'] button[type='submit']")).click();
        wait.until(d -> d.getCurrentUrl().endsWith("#/jobs?queue=emails&status=PENDING"));
        wait.until(ExpectedConditions.numberOfElementsToBe(rows, 20));
        for (WebElement badge : driver.findElements(By.cssSelector("[data-test='job-row'] .badge"))) {
            assertEquals("PENDING", badge.getText());
        }
        driver.findElement(By.cssSelector("[data-nav='queues']")).click();
        record();
        waitVisible(demoRow);

        // the jobs browser, filtered by queue, leads to the job
        driver.findElement(demoRow).findElement(By.linkText("ui-demo")).click();
        record();
        By rowA = By.cssSelector("[data-test='job-row'][data-id='" + jobA + "']");
        waitVisible(rowA);
        assertTrue(driver.getCurrentUrl().endsWith("#/jobs?queue=ui-demo"), driver.getCurrentUrl());
        driver.findElement(rowA).findElement(By.cssSelector("[data-test='job-link']")).click();
        record();
        By status = By.cssSelector("[data-test='job-status'] .badge");
        waitText(status, "PENDING");
        // user data is shown as text, never run as HTML
        assertTrue(text(By.cssSelector("[data-test='payload']")).contains(hostile));
        assertTrue(driver.findElements(By.cssSelector("[data-test='payload'] img")).isEmpty());
        assertEquals(Boolean.TRUE, js("return window.__xss === undefined;"));

        // a worker claims, reports progress and completes it: the open page follows
        JsonPath claim = api(ADMIN).body(Map.of("workerId", "mailer-1", "queues", List.of("ui-demo"),
                "leaseSeconds", 120)).post("/claim").then().statusCode(200).extract().jsonPath();
        assertEquals(jobA, claim.getString("jobs[0].id"));
        String lease = claim.getString("jobs[0].leaseId");
        waitText(status, "LEASED");
        waitText(By.cssSelector("[data-test='worker']"), "mailer-1");
        api(ADMIN).body(Map.of("leaseId", lease, "progress", Map.of("percent", 60, "message", "rendering")))
                .post("/jobs/" + jobA + "/heartbeat").then().statusCode(200);
        waitText(status, "PROCESSING");
        waitVisible(By.cssSelector("[data-test='progress']"));
        api(ADMIN).body(Map.of("leaseId", lease, "result", Map.of("messageId", "m-42")))
                .post("/jobs/" + jobA + "/complete").then().statusCode(200);
        waitText(status, "SUCCEEDED");
        assertTrue(text(By.cssSelector("[data-test='result']")).contains("m-42"));
        shot("03-job-succeeded");

        // a job that fails twice is a dead letter, with both errors on its page
        String jobB = api(ADMIN).body(Map.of("queue", "ui-demo", "type", "send-mail", "maxAttempts", 2))
                .post("/jobs").then().statusCode(201).extract().path("id");
        failOnce("ui-demo", jobB, "SMTP timeout after 30 s");
        failOnce("ui-demo", jobB, "<script>window.__xss=2</script> connection reset");
        assertEquals("DEAD", api(ADMIN).get("/jobs/" + jobB).then().statusCode(200).extract().path("status"));

        driver.findElement(By.cssSelector("[data-nav='dead']")).click();
        record();
        By rowB = By.cssSelector("[data-test='dead-row'][data-id='" + jobB + "']");
        waitVisible(rowB);
        shot("04-dead-letters");
        driver.findElement(rowB).findElement(By.cssSelector("[data-test='job-link']")).click();
        record();
        waitText(status, "DEAD");
        List<WebElement> errors = wait.until(ExpectedConditions.numberOfElementsToBe(
                By.cssSelector("[data-test='error-row']"), 2));
        assertTrue(errors.get(0).getText().contains("SMTP timeout after 30 s"));
        assertTrue(errors.get(1).getText().contains("<script>window.__xss=2</script> connection reset"));
        assertEquals(Boolean.TRUE, js("return window.__xss === undefined;"));
        shot("05-job-errors");

        // requeue it from the dead letters, confirming in the dialog
        driver.navigate().back();
        record();
        waitVisible(rowB);
        driver.findElement(rowB).findElement(By.cssSelector("[data-test='requeue']")).click();
        waitVisible(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(rowB, 0));
        JsonPath requeued = api(ADMIN).get("/jobs/" + jobB).then().statusCode(200).extract().jsonPath();
        assertEquals("PENDING", requeued.getString("status"));
        assertEquals(0, requeued.getInt("attempt"));
        assertEquals("ops", requeued.getString("modifiedBy"));

        // pause and resume the queue
        driver.findElement(By.cssSelector("[data-nav='queues']")).click();
        record();
        waitVisible(demoRow);
        driver.findElement(demoRow).findElement(By.cssSelector("[data-test='pause']")).click();
        waitText(By.cssSelector("[data-queue='ui-demo'] [data-test='queue-state']"), "paused");
        assertEquals(Boolean.TRUE, api(ADMIN).get("/queues/ui-demo").then().statusCode(200).extract().path("paused"));
        // the pause's toast is still showing over the row: it must let the click through to the button
        assertFalse(driver.findElements(By.cssSelector("[data-test='toast']")).isEmpty(), "the pause's toast shows");
        driver.findElement(demoRow).findElement(By.cssSelector("[data-test='resume']")).click();
        waitText(By.cssSelector("[data-queue='ui-demo'] [data-test='queue-state']"), "running");
        assertEquals(Boolean.FALSE, api(ADMIN).get("/queues/ui-demo").then().statusCode(200).extract().path("paused"));

        // delete: a queue that holds jobs is refused with the broker's reason (the refused DELETE is
        // the console error this causes); an empty one goes
        expectedConsoleErrors.add("/queues/ui-demo - Failed to load resource: the server responded with a status of 409");
        driver.findElement(demoRow).findElement(By.cssSelector("[data-test='delete-queue']")).click();
        waitVisible(By.id("confirm-ok")).click();
        waitVisible(By.xpath("//*[@data-test='toast' and contains(., 'cannot be deleted') and contains(., 'unfinished')]"));
        assertEquals(200, api(ADMIN).get("/queues/ui-demo").then().extract().statusCode(), "refused: still there");
        api(ADMIN).body(Map.of("maxWorkers", 3, "onSuccess", "delete")).put("/queues/ui-empty").then().statusCode(200);
        driver.findElement(By.cssSelector("[data-nav='queues']")).click();
        By emptyRow = By.cssSelector("[data-test='queue-row'][data-queue='ui-empty']");
        waitVisible(emptyRow);
        // a queue that deletes its succeeded jobs says so; one that archives them does not
        assertEquals("deletes succeeded", driver.findElement(emptyRow)
                .findElement(By.cssSelector("[data-test='queue-deletes-succeeded']")).getText());
        assertTrue(driver.findElement(demoRow).findElements(By.cssSelector("[data-test='queue-deletes-succeeded']")).isEmpty());
        driver.findElement(emptyRow).findElement(By.cssSelector("[data-test='delete-queue']")).click();
        waitVisible(By.id("confirm-ok")).click();
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> d.findElements(emptyRow).isEmpty());
        assertEquals(404, api(ADMIN).get("/queues/ui-empty").then().extract().statusCode());

        // schedules: listed with their next and last runs, paused, resumed and deleted from the page
        api(ADMIN).body(Map.of("cron", "* * * * * *", "job", Map.of("queue", "ticks", "type", "tick")))
                .put("/schedules/every-second").then().statusCode(200);
        api(ADMIN).body(Map.of("cron", "0 6 * * MON-FRI", "timeZone", "Europe/Paris",
                "job", Map.of("queue", "reports", "type", "daily-report"))).put("/schedules/weekday-report")
                .then().statusCode(200);
        driver.findElement(By.cssSelector("[data-nav='schedules']")).click();
        record();
        By ticking = By.cssSelector("[data-test='schedule-row'][data-name='every-second']");
        By weekday = By.cssSelector("[data-test='schedule-row'][data-name='weekday-report']");
        waitVisible(weekday);
        assertFalse(driver.getPageSource().contains("no recurring schedules"), "the old placeholder is gone");
        assertEquals("0 6 * * MON-FRI", driver.findElement(weekday).findElement(By.cssSelector("[data-test='cron']")).getText());
        assertFalse(driver.findElement(weekday).findElement(By.cssSelector("[data-test='next']")).getText().isBlank());
        assertEquals("never", driver.findElement(weekday).findElement(By.cssSelector("[data-test='last']")).getText());
        // the every-second one fires: its last run links the job it enqueued (the view refreshes)
        wait.until(d -> !d.findElement(ticking).findElements(By.cssSelector("[data-test='job-link']")).isEmpty());
        shot("07-schedules");
        driver.findElement(ticking).findElement(By.cssSelector("[data-test='pause']")).click();
        waitText(By.cssSelector("[data-name='every-second'] [data-test='schedule-state']"), "paused");
        assertEquals(Boolean.TRUE, api(ADMIN).get("/schedules/every-second").then().statusCode(200).extract().path("paused"));
        driver.findElement(ticking).findElement(By.cssSelector("[data-test='resume']")).click();
        waitText(By.cssSelector("[data-name='every-second'] [data-test='schedule-state']"), "active");
        assertEquals(Boolean.FALSE, api(ADMIN).get("/schedules/every-second").then().statusCode(200).extract().path("paused"));
        driver.findElement(ticking).findElement(By.cssSelector("[data-test='delete']")).click();
        waitVisible(By.id("confirm-ok")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(ticking, 0));
        api(ADMIN).get("/schedules/every-second").then().statusCode(404);
        waitVisible(weekday);

        driver.findElement(By.id("logout")).click();
        waitVisible(By.id("login-key"));
        assertNull(js("return sessionStorage.getItem('readpast.apiKey');"), "logging out forgets the key");
    }

    // ---- a fair queue's keys --------------------------------------------------------------------------

    @Test
    void aFairQueueLeadsToItsKeysWithTheirPendingAndActiveJobs() throws IOException {
        api(ADMIN).body(Map.of("keyMaxWorkers", 2)).put("/queues/ui-fair").then().statusCode(200);
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            jobs.add(Map.of("queue", "ui-fair", "type", "report", "fairnessKey", "tenant-big"));
        }
        jobs.add(Map.of("queue", "ui-fair", "type", "report", "fairnessKey", "tenant-small"));
        api(ADMIN).body(Map.of("jobs", jobs)).post("/jobs/batch").then().statusCode(200);
        api(ADMIN).body(Map.of("workerId", "ui", "queues", List.of("ui-fair"), "limit", 10, "leaseSeconds", 600))
                .post("/claim").then().statusCode(200);

        login(ADMIN);
        By fairRow = By.cssSelector("[data-test='queue-row'][data-queue='ui-fair']");
        waitVisible(fairRow);
        driver.findElement(fairRow).findElement(By.cssSelector("[data-test='queue-keys']")).click();
        record();
        By big = By.cssSelector("[data-test='key-row'][data-key='tenant-big']");
        waitVisible(big);
        assertTrue(driver.getCurrentUrl().endsWith("#/queues/ui-fair/keys"), driver.getCurrentUrl());
        // keyMaxWorkers 2: two of tenant-big's jobs at work, three waiting; tenant-small's one at work
        assertEquals("3", driver.findElement(big).findElement(By.cssSelector("[data-test='key-pending']")).getText());
        assertEquals("2", driver.findElement(big).findElement(By.cssSelector("[data-test='key-active']")).getText());
        By small = By.cssSelector("[data-test='key-row'][data-key='tenant-small']");
        assertEquals("0", driver.findElement(small).findElement(By.cssSelector("[data-test='key-pending']")).getText());
        assertEquals("1", driver.findElement(small).findElement(By.cssSelector("[data-test='key-active']")).getText());
        assertTrue(text(By.cssSelector("[data-test='key-limits']")).contains("at most 2 active per key"));
        shot("08-fair-queue-keys");
    }

    @Test
    void aBatchPageShowsProgressAndAWaitingJobShowsItsParents() throws IOException {
        String batch = api(ADMIN).body(Map.of("jobs", List.of(Map.of("queue", "ui-batch", "type", "part"),
                        Map.of("queue", "ui-batch", "type", "part")),
                "callback", Map.of("queue", "ui-batch-done", "type", "report")))
                .post("/batches").then().statusCode(201).extract().path("id");
        String waiting = api(ADMIN).body(Map.of("queue", "ui-after", "type", "after",
                        "dependsOn", Map.of("batches", List.of(batch))))
                .post("/jobs").then().statusCode(201).extract().path("id");
        io.restassured.path.json.JsonPath c = api(ADMIN).body(Map.of("workerId", "ui", "queues", List.of("ui-batch"),
                "limit", 1)).post("/claim").then().statusCode(200).extract().jsonPath();
        api(ADMIN).body(Map.of("leaseId", c.getString("jobs[0].leaseId")))
                .post("/jobs/" + c.getString("jobs[0].id") + "/complete").then().statusCode(200);

        login(ADMIN);
        driver.get(base() + "#/batches");
        record();
        By row = By.cssSelector("[data-test='batch-row'][data-id='" + batch + "']");
        waitVisible(row);
        driver.findElement(row).findElement(By.cssSelector("[data-test='batch-link']")).click();
        record();
        waitText(By.cssSelector("[data-test='batch-state']"), "RUNNING");
        assertEquals("2", text(By.cssSelector("[data-test='total']")));
        assertEquals("1", text(By.cssSelector("[data-test='succeeded']")));
        assertEquals("1", text(By.cssSelector("[data-test='pending']")));
        assertEquals("not yet", text(By.cssSelector("[data-test='fired']")));
        shot("09-batch");

        driver.get(base() + "#/jobs/" + waiting);
        record();
        waitText(By.cssSelector("[data-test='job-status']"), "WAITING");
        assertEquals("1", text(By.cssSelector("[data-test='parents-left']")));
        waitVisible(By.cssSelector("[data-test='parents-item']"));
        String parent = text(By.cssSelector("[data-test='parents-item']"));
        assertTrue(parent.contains("batch #" + batch) && parent.contains("not settled"), parent);
        shot("10-waiting-job");
    }

    @Test
    void anAdminEditsAScheduledJobAndRunsItNow() throws IOException {
        String id = api(ADMIN).body(Map.of("queue", "ui-edit", "type", "later", "payload", Map.of("n", 1),
                "delaySeconds", 3600, "timeoutSeconds", 300, "retry", Map.of("delaysSeconds", List.of(10, 60))))
                .post("/jobs").then().statusCode(201).extract().path("id");
        login(ADMIN);
        driver.get(base() + "#/jobs/" + id);
        record();
        waitText(By.cssSelector("[data-test='job-status']"), "PENDING");
        // its own limits, as enqueued
        waitText(By.cssSelector("[data-test='time-limit']"), "5 min");
        waitText(By.cssSelector("[data-test='retry']"), "10 s, 60 s (last repeats)");
        waitVisible(By.cssSelector("[data-test='edit']")).click();
        waitVisible(By.cssSelector("[data-test='edit-priority']"));
        // the dialog fits a laptop and a phone: nothing wider than the window, Save in view
        for (Dimension size : List.of(new Dimension(1366, 768), new Dimension(390, 844))) {
            driver.manage().window().setSize(size);
            wait.until(d -> ((Number) js("return window.innerWidth;")).intValue() <= size.width);
            String where = size.width + "x" + size.height;
            Number overflow = (Number) js("return document.documentElement.scrollWidth - window.innerWidth;");
            assertTrue(overflow.longValue() <= 0, "no horizontal overflow with the dialog at " + where + ": " + overflow);
            Number dialogRight = (Number) js("return document.querySelector('[data-test=edit-dialog]')"
                    + ".getBoundingClientRect().right - window.innerWidth;");
            assertTrue(dialogRight.doubleValue() <= 0, "the dialog is in the window at " + where + ": " + dialogRight);
            Number saveOut = (Number) js("const r = document.querySelector('[data-test=edit-save]').getBoundingClientRect();"
                    + " return Math.max(r.right - window.innerWidth, r.bottom - window.innerHeight);");
            assertTrue(saveOut.doubleValue() <= 0, "Save is in view at " + where + ": " + saveOut);
            shotOfWindow("11-edit-dialog-" + size.width);
        }
        driver.manage().window().setSize(new Dimension(1366, 900));
        WebElement priority = waitVisible(By.cssSelector("[data-test='edit-priority']"));
        priority.clear();
        priority.sendKeys("8");
        WebElement payload = driver.findElement(By.cssSelector("[data-test='edit-payload']"));
        payload.clear();
        payload.sendKeys("{\"n\": 2");
        driver.findElement(By.cssSelector("[data-test='edit-save']")).click();
        // not JSON: said in the dialog, nothing sent
        waitText(By.cssSelector("[data-test='edit-error']"), "not valid JSON");
        assertEquals(0, api(ADMIN).get("/jobs/" + id).then().extract().jsonPath().getInt("priority"));
        shot("12-edit-job");
        payload.sendKeys("}");
        driver.findElement(By.cssSelector("[data-test='edit-save']")).click();
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("[data-test='edit-dialog']")));
        io.restassured.path.json.JsonPath edited = api(ADMIN).get("/jobs/" + id).then().statusCode(200).extract().jsonPath();
        assertEquals(8, edited.getInt("priority"));
        assertEquals(2, edited.getInt("payload.n"));
        assertEquals("ops", edited.getString("modifiedBy"));

        // run now: due at once, and the button goes
        waitVisible(By.cssSelector("[data-test='run-now']")).click();
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("[data-test='run-now']")));
        io.restassured.path.json.JsonPath c = api(ADMIN).body(Map.of("workerId", "ui", "queues", List.of("ui-edit")))
                .post("/claim").then().statusCode(200).extract().jsonPath();
        assertEquals(id, c.getString("jobs[0].id"));
        // a job a worker holds offers no edit
        waitText(By.cssSelector("[data-test='job-status']"), "LEASED");
        assertTrue(driver.findElements(By.cssSelector("[data-test='edit']")).isEmpty());
    }

    @Test
    void anAdminSearchesByPayloadAndErrorThenRequeuesTheMatchesInBulk() throws IOException {
        List<String> acme = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            acme.add(deadJob("ui-bulk", Map.of("customer", "acme", "n", i), "SMTP timeout #" + i));
        }
        String globex = deadJob("ui-bulk", Map.of("customer", "globex"), "SMTP timeout");
        String refused = deadJob("ui-bulk", Map.of("customer", "acme"), "connection refused");
        login(ADMIN);
        driver.get(base() + "#/jobs");
        record();
        waitVisible(By.cssSelector("[data-test='filter-payload']")).sendKeys("{\"customer\":\"acme\"}");
        driver.findElement(By.cssSelector("[data-test='filter-error']")).sendKeys("timeout");
        driver.findElement(By.cssSelector("[data-test='status-DEAD']")).click();
        driver.findElement(By.cssSelector("[data-test='filter-payload']")).submit();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("[data-test='job-row']"), 3));
        List<String> shown = driver.findElements(By.cssSelector("[data-test='job-row']")).stream()
                .map(e -> e.getAttribute("data-id")).toList();
        assertEquals(new java.util.HashSet<>(acme), new java.util.HashSet<>(shown), "only acme's timeouts");
        for (Dimension size : List.of(new Dimension(1366, 768), new Dimension(390, 844))) {
            driver.manage().window().setSize(size);
            wait.until(d -> ((Number) js("return window.innerWidth;")).intValue() <= size.width);
            Number overflow = (Number) js("return document.documentElement.scrollWidth - window.innerWidth;");
            assertTrue(overflow.longValue() <= 0, "no horizontal overflow with filters and bulk actions at "
                    + size.width + ": " + overflow);
            Number bulkRight = (Number) js("return document.querySelector('[data-test=bulk-delete]')"
                    + ".getBoundingClientRect().right - window.innerWidth;");
            assertTrue(bulkRight.doubleValue() <= 0, "the bulk buttons are in view at " + size.width + ": " + bulkRight);
            shotOfWindow("13-bulk-" + size.width);
        }
        driver.manage().window().setSize(new Dimension(1366, 900));

        // requeued into a queue of their own, which exists
        api(ADMIN).body(Map.of()).put("/queues/ui-bulk-retry").then().statusCode(200);
        waitVisible(By.cssSelector("[data-test='bulk-into']")).sendKeys("ui-bulk-retry");
        waitVisible(By.cssSelector("[data-test='bulk-requeue']")).click();
        waitText(By.id("confirm-text"), "Requeue 3 jobs into queue ui-bulk-retry?");
        waitVisible(By.id("confirm-ok")).click();
        waitText(By.cssSelector("[data-test='toast']"), "3 changed, 0 skipped");
        for (String id : acme) {
            assertEquals("PENDING", api(ADMIN).get("/jobs/" + id).then().statusCode(200).extract().path("status"), id);
            assertEquals("ui-bulk-retry", api(ADMIN).get("/jobs/" + id).then().extract().path("queue"), id);
        }
        assertEquals("DEAD", api(ADMIN).get("/jobs/" + globex).then().extract().path("status"), "another customer");
        assertEquals("DEAD", api(ADMIN).get("/jobs/" + refused).then().extract().path("status"), "another error");
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("[data-test='job-row']"), 0));
    }

    /** A job of {@code queue} failed for good with {@code error}. */
    private static String deadJob(String queue, Map<String, Object> payload, String error) {
        String id = api(ADMIN).body(Map.of("queue", queue, "type", "t", "payload", payload, "maxAttempts", 1))
                .post("/jobs").then().statusCode(201).extract().path("id");
        JsonPath c = api(ADMIN).body(Map.of("workerId", "mailer-2", "queues", List.of(queue), "limit", 1))
                .post("/claim").then().statusCode(200).extract().jsonPath();
        assertEquals(id, c.getString("jobs[0].id"));
        api(ADMIN).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", error))
                .post("/jobs/" + id + "/fail").then().statusCode(200);
        return id;
    }

    // ---- a producer key ----------------------------------------------------------------------------

    @Test
    void aProducerSeesForbiddenAreasAndReadsItsJobs() throws IOException {
        String id = api(PRODUCER).body(Map.of("queue", "shop", "type", "invoice", "payload", Map.of("order", 7)))
                .post("/jobs").then().statusCode(201).extract().path("id");
        login(PRODUCER);
        assertEquals("producer", text(By.cssSelector("[data-test='who-roles']")));
        WebElement forbidden = waitVisible(By.cssSelector("[data-test='forbidden']"));
        assertTrue(forbidden.getText().contains("403"), forbidden.getText());
        assertTrue(forbidden.getText().contains("shop"), "names the key: " + forbidden.getText());
        shot("06-producer-forbidden");

        driver.findElement(By.cssSelector("[data-nav='dead']")).click();
        record();
        waitText(By.cssSelector("[data-test='forbidden']"), "403");

        // reading a job by id is a producer's right; operator actions are not offered
        WebElement find = driver.findElement(By.id("find-id"));
        find.sendKeys(id + Keys.ENTER);
        record();
        waitText(By.cssSelector("[data-test='job-status'] .badge"), "PENDING");
        assertTrue(text(By.cssSelector("[data-test='payload']")).contains("\"order\": 7"));
        assertTrue(driver.findElements(By.cssSelector("[data-test='cancel']")).isEmpty());
        assertTrue(driver.findElements(By.cssSelector("[data-test='delete']")).isEmpty());
    }

    /**
     * At a laptop's 1366 px and a phone's 390 px, no page is wider than the window and the top
     * bar keeps the key's name and Log out in view; at 1366 the jobs table fits, Cancel buttons
     * included. (Tables may scroll inside their card on a phone.)
     */
    @Test
    void everyPageFitsALaptopAndAPhone() throws IOException {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            jobs.add(Map.of("queue", "customer-notifications.eu-west", "type", "send-transactional-email.v2",
                    "payload", Map.of("n", i)));
        }
        api(ADMIN).body(Map.of("jobs", jobs)).post("/jobs/batch").then().statusCode(200);
        String failing = api(ADMIN).body(Map.of("queue", "customer-notifications.eu-west", "type", "t", "maxAttempts", 5, "priority", 10))
                .post("/jobs").then().statusCode(201).extract().path("id");
        failOnce("customer-notifications.eu-west", failing,
                "SMTP 451 4.7.1 Temporary local problem, please try again later: greylisted by mx.example.net");
        api(ADMIN).body(Map.of("cron", "0 6 * * MON-FRI", "job", Map.of("queue", "reports", "type", "daily")))
                .put("/schedules/weekday-report").then().statusCode(200);
        login(ADMIN);
        for (int width : new int[] {1366, 390}) {
            driver.manage().window().setSize(new Dimension(width, width > 1000 ? 900 : 844));
            Map<String, String> titles = new java.util.LinkedHashMap<>();
            titles.put("#/queues", "Queues");
            titles.put("#/jobs", "Jobs");
            titles.put("#/dead", "Dead letters");
            titles.put("#/schedules", "Schedules");
            titles.put("#/jobs/" + failing, "Job #" + failing);
            for (var entry : titles.entrySet()) {
                String hash = entry.getKey();
                driver.get(base() + hash);
                waitText(By.cssSelector("#main .page-head h1"), entry.getValue());
                wait.until(d -> !d.findElements(By.cssSelector("#view-body .card")).isEmpty());
                String where = width + " px, " + hash;
                Number overflow = (Number) js("return document.documentElement.scrollWidth - window.innerWidth;");
                assertTrue(overflow.longValue() <= 0, "no horizontal overflow at " + where + ": " + overflow + " px");
                for (String id : List.of("logout", "who-name", "find-id")) {
                    Number right = (Number) js("const r = document.getElementById('" + id + "').getBoundingClientRect();"
                            + " return r.width > 0 ? r.right - window.innerWidth : 1e9;");
                    assertTrue(right.doubleValue() <= 0, id + " is in view at " + where + " (" + right + ")");
                }
                if (width == 1366 && hash.equals("#/jobs")) {
                    wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("[data-test='job-row']"), 31));
                    Number cut = (Number) js("const w = document.querySelector('[data-test=jobs]').closest('.table-wrap');"
                            + " return w.scrollWidth - w.clientWidth;");
                    assertTrue(cut.longValue() <= 0, "the jobs table fits at 1366 px: " + cut + " px cut");
                    Number cancelRight = (Number) js("return Math.max(...[...document.querySelectorAll("
                            + "'[data-test=cancel]')].map(b => b.getBoundingClientRect().right)) - window.innerWidth;");
                    assertTrue(cancelRight.doubleValue() <= 0, "every Cancel button is in view: " + cancelRight);
                    shotOfWindow("08-jobs-1366");
                }
            }
            shotOfWindow("09-job-" + width);
        }
    }

    @Test
    void aWrongKeyIsRefusedAndNotKept() {
        // the refused GET /me is the one console error this test causes
        expectedConsoleErrors.add("/me - Failed to load resource: the server responded with a status of 401");
        driver.findElement(By.id("login-key")).sendKeys("rp_not-a-key-of-this-broker-0123456789");
        driver.findElement(By.id("login-submit")).click();
        waitText(By.id("login-error"), "not accepted");
        assertNull(js("return sessionStorage.getItem('readpast.apiKey');"));
        assertEquals("", driver.findElement(By.id("login-key")).getAttribute("value"), "the field is emptied");
        assertTrue(driver.findElement(By.id("top")).getAttribute("hidden") != null, "no dashboard without a key");
    }

    // ---- helpers --------------------------------------------------------------------------------

    private String base() {
        // 127.0.0.1 rather than localhost: nothing for the browser to resolve
        return ui.toString().replace("://localhost:", "://127.0.0.1:");
    }

    private void login(String key) {
        WebElement input = waitVisible(By.id("login-key"));
        input.sendKeys(key);
        driver.findElement(By.id("login-submit")).click();
        waitVisible(By.id("top"));
        record();
    }

    private void record() {
        URLS.add(driver.getCurrentUrl());
    }

    private WebElement waitVisible(By by) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(by));
    }

    /** Until no toast is shown (each stays 5 s): one over a button would take its click. */
    private void waitText(By by, String text) {
        wait.until(ExpectedConditions.textToBePresentInElementLocated(by, text));
    }

    private String text(By by) {
        return waitVisible(by).getText();
    }

    private List<Long> ids(By rows) {
        return driver.findElements(rows).stream().map(r -> Long.parseLong(r.getAttribute("data-id"))).toList();
    }

    private Object js(String script) {
        return ((JavascriptExecutor) driver).executeScript(script);
    }

    /** A screenshot of what the window shows. */
    private void shotOfWindow(String name) throws IOException {
        Files.write(SHOTS.resolve(name + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
    }

    /** A screenshot of the whole page: the window is stretched to the page's height for it. */
    private void shot(String name) throws IOException {
        Dimension window = driver.manage().window().getSize();
        long height = ((Number) js("return document.documentElement.scrollHeight;")).longValue();
        driver.manage().window().setSize(new Dimension(window.getWidth(),
                (int) Math.min(4000, Math.max(window.getHeight(), height + 140))));
        try {
            Files.write(SHOTS.resolve(name + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
        } finally {
            driver.manage().window().setSize(window);
        }
    }

    private static RequestSpecification api(String key) {
        return given().contentType(ContentType.JSON).header("Authorization", "Bearer " + key);
    }

    /** Claims the one job of the queue and fails it, retryable, due again at once. */
    private static void failOnce(String queue, String id, String error) {
        JsonPath c = api(ADMIN).body(Map.of("workerId", "mailer-2", "queues", List.of(queue), "limit", 1))
                .post("/claim").then().statusCode(200).extract().jsonPath();
        assertEquals(id, c.getString("jobs[0].id"));
        api(ADMIN).body(Map.of("leaseId", c.getString("jobs[0].leaseId"), "error", error, "retryAfterSeconds", 0))
                .post("/jobs/" + id + "/fail").then().statusCode(200);
    }

    /**
     * Some traffic for the overview (and the README's screenshot): jobs enqueued, claimed and
     * completed or failed through the API in a few queues; the finished ones are then spread over
     * the last hour by moving their finished_at back (0 to 58 minutes, more of them recently), so
     * that the chart has a history.
     */
    private static void seedTraffic() {
        Map<String, Integer> done = Map.of("emails", 180, "reports", 45, "webhooks", 90);
        for (var e : done.entrySet()) {
            List<Map<String, Object>> jobs = new ArrayList<>();
            for (int i = 0; i < e.getValue(); i++) {
                jobs.add(Map.of("queue", e.getKey(), "type", "work", "payload", Map.of("n", i)));
            }
            api(ADMIN).body(Map.of("jobs", jobs)).post("/jobs/batch").then().statusCode(200);
            JsonPath claimed = api(ADMIN).body(Map.of("workerId", "seed", "queues", List.of(e.getKey()),
                    "limit", e.getValue())).post("/claim").then().statusCode(200).extract().jsonPath();
            List<Map<String, Object>> items = new ArrayList<>();
            List<String> ids = claimed.getList("jobs.id");
            List<String> leases = claimed.getList("jobs.leaseId");
            for (int i = 0; i < ids.size(); i++) {
                if (e.getKey().equals("webhooks") && i % 15 == 0) {
                    api(ADMIN).body(Map.of("leaseId", leases.get(i), "error", "HTTP 500 from receiver",
                            "retryable", false)).post("/jobs/" + ids.get(i) + "/fail").then().statusCode(200);
                } else {
                    items.add(Map.of("id", ids.get(i), "leaseId", leases.get(i)));
                }
            }
            api(ADMIN).body(Map.of("items", items)).post("/jobs/complete").then().statusCode(200);
        }
        // live work: pending and leased jobs
        List<Map<String, Object>> waiting = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            waiting.add(Map.of("queue", i % 2 == 0 ? "emails" : "webhooks", "type", "work"));
        }
        api(ADMIN).body(Map.of("jobs", waiting)).post("/jobs/batch").then().statusCode(200);
        api(ADMIN).body(Map.of("workerId", "seed-2", "queues", List.of("webhooks"), "limit", 6, "leaseSeconds", 600))
                .post("/claim").then().statusCode(200);
        api(ADMIN).body(Map.of("maxWorkers", 8)).put("/queues/reports").then().statusCode(200);
        boolean mssql = TestDb.engine() == Engine.SQLSERVER;
        String spread = mssql
                ? "UPDATE %s SET finished_at = DATEADD(SECOND, -(((id * 7919) %% 60) * ((id * 104729) %% 60)), finished_at)"
                : "UPDATE %s SET finished_at = finished_at - ((id * 7919) %% 60) * ((id * 104729) %% 60) * interval '1 second'";
        try (Connection c = TestDb.dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.executeUpdate(String.format(spread, "readpast_job_archive"));
            s.executeUpdate(String.format(spread, "readpast_job_dead"));
        } catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
