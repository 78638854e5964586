package io.readpast.core;

import io.readpast.store.ScheduleRow;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The firing plan, with no database: which slots a due schedule handles, which of them fire, and what is next. */
class ScheduleFirerPlanTest {

    /** Every minute, UTC; the firer is never run here (no store). */
    private static final String EVERY_MINUTE = "* * * * *";
    private static final ScheduleFirer FIRER = new ScheduleFirer(null, 10, 5, Duration.ofMinutes(1), 3, j -> { });
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    private static ScheduleRow.Due due(String overlap, String catchUp, Instant next, Instant now, boolean live) {
        ScheduleRow s = new ScheduleRow("s", EVERY_MINUTE, "UTC", "q", "t", "null", null, 0, null, overlap, catchUp,
                false, next, null, null, null, null, null, null);
        return new ScheduleRow.Due(s, now, live);
    }

    private static List<Instant> minutes(int from, int count) {
        return java.util.stream.IntStream.range(from, from + count).mapToObj(m -> T0.plusSeconds(60L * m)).toList();
    }

    @Test
    void onTimeSlotFiresAndTheNextMinuteIsNext() {
        ScheduleRow.FirePlan p = FIRER.plan(due("ALLOW", "LATEST", T0, T0.plusSeconds(5), false));
        assertEquals(List.of(new ScheduleRow.Slot(T0, true)), p.slots());
        assertEquals(T0.plusSeconds(60), p.next());
    }

    @Test
    void catchUpAllFiresEveryMissedSlotUpToTheMaximumPerPass() {
        ScheduleRow.FirePlan p = FIRER.plan(due("ALLOW", "ALL", T0, T0.plusSeconds(60 * 9 + 5), false));
        assertEquals(minutes(0, 5), p.slots().stream().map(ScheduleRow.Slot::at).toList(), "catch-up-max 5 per pass");
        assertEquals(T0.plusSeconds(60 * 5), p.next(), "the rest in the next pass");
    }

    @Test
    void catchUpLatestFiresOnlyTheMostRecentMissedSlotThenTheOnTimeOnes() {
        // next was 10:00; now 10:09:30 with a one-minute grace: 10:00..10:08 are missed, 10:09 is on time
        ScheduleRow.FirePlan p = FIRER.plan(due("ALLOW", "LATEST", T0, T0.plusSeconds(60 * 9 + 30), false));
        assertEquals(List.of(T0.plusSeconds(60 * 8), T0.plusSeconds(60 * 9)),
                p.slots().stream().map(ScheduleRow.Slot::at).toList());
        assertEquals(T0.plusSeconds(60 * 10), p.next());
    }

    @Test
    void catchUpNoneSkipsWhatWasMissed() {
        ScheduleRow.FirePlan p = FIRER.plan(due("ALLOW", "NONE", T0, T0.plusSeconds(60 * 9 + 30), false));
        assertEquals(List.of(T0.plusSeconds(60 * 9)), p.slots().stream().map(ScheduleRow.Slot::at).toList());
    }

    @Test
    void overlapSkipFiresNothingWhileTheLastJobIsLive() {
        ScheduleRow.FirePlan p = FIRER.plan(due("SKIP", "ALL", T0, T0.plusSeconds(60 * 2 + 5), true));
        assertEquals(List.of(false, false, false), p.slots().stream().map(ScheduleRow.Slot::fire).toList());
    }

    @Test
    void overlapSkipFiresTheFirstSlotAndSkipsTheRestItsJobOverlaps() {
        ScheduleRow.FirePlan p = FIRER.plan(due("SKIP", "ALL", T0, T0.plusSeconds(60 * 2 + 5), false));
        assertEquals(List.of(true, false, false), p.slots().stream().map(ScheduleRow.Slot::fire).toList());
    }

    @Test
    void overlapAllowFiresEverySlotEvenWithALiveJob() {
        ScheduleRow.FirePlan p = FIRER.plan(due("ALLOW", "ALL", T0, T0.plusSeconds(60 * 2 + 5), true));
        assertEquals(List.of(true, true, true), p.slots().stream().map(ScheduleRow.Slot::fire).toList());
    }

    @Test
    void theLatestSlotIsFoundWithoutWalkingAYearOfMinutes() {
        Cron cron = Cron.parse(EVERY_MINUTE, "UTC");
        Instant until = T0.plus(Duration.ofDays(365)).plusSeconds(30);
        assertEquals(T0.plus(Duration.ofDays(365)), ScheduleFirer.latestSlot(cron, T0, until));
    }
}
