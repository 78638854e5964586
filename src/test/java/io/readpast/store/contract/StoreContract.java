package io.readpast.store.contract;

import io.readpast.testsupport.TestDb;
import io.readpast.config.Engine;
import io.readpast.core.JobStatus;
import io.readpast.store.ClaimParams;
import io.readpast.store.CompleteItem;
import io.readpast.store.Database;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.LeaseEnd;
import io.readpast.store.LeaseRef;
import io.readpast.store.NewJob;
import io.readpast.store.QueueSettings;
import io.readpast.store.ScheduleRow;
import io.readpast.store.jdbc.JdbcStores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What every engine's store must do, through the ports alone (no HTTP, no core): each engine has
 * a subclass that runs these where that engine is the test database, and skips elsewhere with
 * the reason. An engine's known gaps are declared once, in its subclass.
 */
abstract class StoreContract {

    /** The engine this subclass is about. */
    abstract Engine engine();

    JdbcStores stores;

    @BeforeEach
    void onThisEngine() {
        Engine here = TestDb.engine();
        if (here != engine()) {
            System.out.println(getClass().getSimpleName() + " skipped: the test database is " + here + ", not " + engine());
        }
        assumeTrue(here == engine(), "the test database is " + here + ", not " + engine());
        TestDb.clean();
        stores = TestDb.bean(Database.class).start();
    }

    static NewJob job(String queue, String key) {
        return new NewJob(queue, "t", "{\"n\":1}", null, key, 0, null, 3, null, 0, "contract", null, null, null, 0, null);
    }

    private List<JobRow> claim(String queue, int limit) {
        return stores.jobs().jobClaim(new ClaimParams("w", List.of(queue), limit, 30, 30, "contract"));
    }

    @Test
    void aJobGoesFromInsertThroughClaimToSucceededOnlyUnderItsLease() {
        JobStore jobs = stores.jobs();
        JobRow inserted = jobs.jobInsert(job("c1", null)).orElseThrow().job();
        assertEquals(JobStatus.PENDING, JobStatus.of(inserted));
        List<JobRow> claimed = claim("c1", 10);
        assertEquals(1, claimed.size());
        JobRow leased = claimed.get(0);
        assertEquals(JobStatus.LEASED, JobStatus.of(leased));
        assertNotNull(leased.leaseId());
        assertTrue(claim("c1", 10).isEmpty(), "a leased job is not claimed again");
        String otherLease = "00000000-0000-0000-0000-000000000000";
        assertTrue(jobs.jobComplete(new LeaseRef(leased.id(), otherLease), null, "contract").isEmpty(), "another lease");
        JobRow done = jobs.jobComplete(new LeaseRef(leased.id(), leased.leaseId()), "{\"ok\":true}", "contract").orElseThrow();
        assertEquals(JobStatus.SUCCEEDED, JobStatus.of(done));
        assertEquals(JobStatus.SUCCEEDED, JobStatus.of(jobs.jobGet(leased.id()).orElseThrow()), "read from the archive");
        assertTrue(jobs.jobComplete(new LeaseRef(leased.id(), leased.leaseId()), null, "contract").isEmpty(),
                "a finished job is not completed twice");
    }

    @Test
    void aLiveIdempotencyKeyInsertsNothingAndNamesItsHolder() {
        JobStore jobs = stores.jobs();
        JobRow first = jobs.jobInsert(job("c2", "key-1")).orElseThrow().job();
        assertTrue(jobs.jobInsert(job("c2", "key-1")).isEmpty());
        assertEquals(first.id(), jobs.jobGetByKey("key-1").orElseThrow().id());
        List<JobStore.Inserted> batch = jobs.jobInsertMany(List.of(job("c2", "key-1"), job("c2", "key-2"), job("c2", "key-2")));
        assertFalse(batch.get(0).created());
        assertEquals(first.id(), batch.get(0).job().id());
        assertTrue(batch.get(1).created());
        assertFalse(batch.get(2).created(), "a key taken earlier in the same batch");
        assertEquals(batch.get(1).job().id(), batch.get(2).job().id());
        assertEquals(2, TestDb.count("SELECT COUNT(*) FROM readpast_job WHERE queue = 'c2'"));
    }

    @Test
    void aRetryWaitsItsDelayAndKeepsTheError() {
        JobStore jobs = stores.jobs();
        jobs.jobInsert(job("c3", null));
        JobRow leased = claim("c3", 1).get(0);
        JobRow retried = jobs.jobRetry(new LeaseEnd(leased.id(), leased.leaseId(), "boom", false, "contract"), 60_000)
                .orElseThrow();
        assertEquals(JobStatus.PENDING, JobStatus.of(retried));
        assertTrue(retried.dueAt().isAfter(TestDb.dbNow().plusSeconds(50)), "due in about a minute: " + retried.dueAt());
        assertEquals("boom", retried.lastError());
        assertTrue(retried.errors().contains("boom"), retried.errors());
        assertTrue(claim("c3", 1).isEmpty(), "not claimable before its due time");
    }

    @Test
    void aBatchAckCompletesOnlyTheItemsWhoseLeaseIsHeld() {
        JobStore jobs = stores.jobs();
        jobs.jobInsertMany(List.of(job("c4", null), job("c4", null), job("c4", null)));
        List<JobRow> leased = claim("c4", 3);
        assertEquals(3, leased.size());
        Map<Long, JobStore.Acked> acked = jobs.jobCompleteMany(List.of(
                new CompleteItem(leased.get(0).id(), leased.get(0).leaseId(), null),
                new CompleteItem(leased.get(1).id(), "00000000-0000-0000-0000-000000000000", null)), "contract");
        assertEquals(java.util.Set.of(leased.get(0).id()), acked.keySet());
        assertEquals(leased.get(0).leaseId(), acked.get(leased.get(0).id()).leaseId());
        JobStore.AckClaimed next = jobs.jobAckClaim(List.of(new CompleteItem(leased.get(2).id(), leased.get(2).leaseId(), null)),
                new ClaimParams("w", List.of("c4"), 10, 30, 30, "contract"));
        assertEquals(java.util.Set.of(leased.get(2).id()), next.acked().keySet());
        assertTrue(next.claimed().isEmpty(), "nothing else is claimable");
    }

    @Test
    void aPausedQueueIsNotClaimedAndACappedOneHoldsItsCap() {
        stores.jobs().jobInsertMany(List.of(job("c5", null), job("c5", null), job("c5", null)));
        stores.queues().queueUpsert(new QueueSettings("c5", null, true, true, null, null, null, null, null, null, null));
        assertTrue(claim("c5", 10).isEmpty(), "paused");
        stores.queues().queueUpsert(new QueueSettings("c5", 2, false, true, null, null, null, null, null, null, null));
        assertEquals(2, claim("c5", 10).size(), "maxWorkers 2");
        assertTrue(claim("c5", 10).isEmpty(), "at its cap");
        assertEquals(List.of("c5"), stores.queues().queueFind(List.of("c5", "c5-missing")));
    }

    @Test
    void aScheduleSlotIsRecordedOnceAndTheStoreDoesWhatThePlanSays() {
        Instant now = stores.maintenance().dbNow();
        Instant slot = now.minusSeconds(1).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        stores.schedules().scheduleUpsert(new ScheduleRow("c6", "* * * * *", "UTC", "c6", "t", "null", null, 0, null,
                "ALLOW", "ALL", false, slot, null, null, null, null, null, null), "contract");
        Instant next = slot.plus(Duration.ofMinutes(1));
        Optional<ScheduleRow.Fired> fired = stores.schedules().scheduleFire("c6", due -> new ScheduleRow.FirePlan(
                List.of(new ScheduleRow.Slot(slot, true), new ScheduleRow.Slot(slot.plusMillis(1), false)), next), 3);
        assertEquals(1, fired.orElseThrow().jobs().size());
        assertEquals(1, fired.get().skipped());
        ScheduleRow after = stores.schedules().scheduleGet("c6").orElseThrow();
        assertEquals(next, after.nextFireAt());
        assertEquals(fired.get().jobs().get(0).id(), after.lastJobId());
        assertTrue(stores.schedules().scheduleFire("c6", due -> {
            throw new AssertionError("not due: the planner is not asked");
        }, 3).isEmpty());
    }

    @Test
    void theDatabaseClockIsTheClock() {
        Instant db = stores.maintenance().dbNow();
        assertTrue(Duration.between(db, TestDb.dbNow()).abs().toSeconds() < 5, db + " vs " + TestDb.dbNow());
    }
}
