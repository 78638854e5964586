package io.readpast.core;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cron parser and next-fire calculator, DST transitions included. */
class CronTest {

    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final ZoneId UTC = ZoneId.of("UTC");

    private static List<String> fires(String expr, ZoneId zone, String fromLocal, int n) {
        Cron c = Cron.parse(expr, zone);
        Instant t = ZonedDateTime.of(java.time.LocalDateTime.parse(fromLocal), zone).toInstant();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Instant next = c.next(t);
            assertTrue(next.isAfter(t), "fire times must increase");
            out.add(next.atZone(zone).toOffsetDateTime().toString());
            t = next;
        }
        return out;
    }

    @Test
    void fiveFieldsEveryFifteenMinutes() {
        assertEquals(List.of("2026-05-01T10:15Z", "2026-05-01T10:30Z", "2026-05-01T10:45Z", "2026-05-01T11:00Z"),
                fires("*/15 * * * *", UTC, "2026-05-01T10:07:13", 4));
    }

    @Test
    void sixFieldsWithSeconds() {
        assertEquals(List.of("2026-05-01T10:00:10Z", "2026-05-01T10:00:40Z", "2026-05-01T10:01:10Z"),
                fires("10/30 * * * * *", UTC, "2026-05-01T10:00:00", 3));
    }

    @Test
    void namesRangesListsAndSteps() {
        // 09:30 on weekdays in March and June
        assertEquals(List.of("2026-03-02T09:30Z", "2026-03-03T09:30Z"),
                fires("30 9 * mar,JUN mon-fri", UTC, "2026-02-28T00:00:00", 2));
        // every second hour from 8 to 16 on the 1st and 15th
        assertEquals(List.of("2026-01-15T08:00Z", "2026-01-15T10:00Z", "2026-01-15T12:00Z", "2026-01-15T14:00Z",
                        "2026-01-15T16:00Z", "2026-02-01T08:00Z"),
                fires("0 8-16/2 1,15 * *", UTC, "2026-01-01T16:00:00", 6));
        // 7 is Sunday too
        assertEquals(List.of("2026-05-03T00:00Z"), fires("0 0 * * 7", UTC, "2026-05-01T00:00:00", 1));
        assertEquals(List.of("2026-05-03T00:00Z"), fires("@weekly", UTC, "2026-05-01T00:00:00", 1));
        assertEquals(List.of("2027-01-01T00:00Z"), fires("@yearly", UTC, "2026-05-01T00:00:00", 1));
    }

    @Test
    void bothDayFieldsRestrictedMatchEither() {
        // the 13th, or any Friday (Vixie cron)
        assertEquals(List.of("2026-02-06T00:00Z", "2026-02-13T00:00Z", "2026-02-20T00:00Z"),
                fires("0 0 13 * fri", UTC, "2026-02-01T00:00:00", 3));
        // with one day field '*', only the other restricts
        assertEquals(List.of("2026-02-13T00:00Z", "2026-03-13T00:00Z"), fires("0 0 13 * ?", UTC, "2026-02-01T00:00:00", 2));
    }

    @Test
    void leapDayIsFound() {
        assertEquals(List.of("2028-02-29T12:00Z", "2032-02-29T12:00Z"), fires("0 12 29 2 *", UTC, "2026-03-01T00:00:00", 2));
    }

    @Test
    void springForwardGapFiresOnceWhenTheClocksJump() {
        // New York, 8 March 2026: 02:00 EST -> 03:00 EDT. 02:30 does not exist: the daily job runs at 03:00 EDT.
        assertEquals(List.of("2026-03-07T02:30-05:00", "2026-03-08T03:00-04:00", "2026-03-09T02:30-04:00"),
                fires("30 2 * * *", NEW_YORK, "2026-03-07T00:00:00", 3));
        // every 15 minutes: 01:45 EST, then 03:00 EDT once (the skipped 02:xx collapse into it), 03:15 ...
        assertEquals(List.of("2026-03-08T01:45-05:00", "2026-03-08T03:00-04:00", "2026-03-08T03:15-04:00"),
                fires("*/15 * * * *", NEW_YORK, "2026-03-08T01:40:00", 3));
    }

    @Test
    void fallBackRepeatedHourFiresOnceForFixedTimes() {
        // New York, 1 November 2026: 02:00 EDT -> 01:00 EST. 01:30 happens twice: a daily job runs once.
        assertEquals(List.of("2026-10-31T01:30-04:00", "2026-11-01T01:30-04:00", "2026-11-02T01:30-05:00"),
                fires("30 1 * * *", NEW_YORK, "2026-10-31T00:00:00", 3));
    }

    @Test
    void fallBackRepeatedHourKeepsHourlySchedulesGoing() {
        // hourly: 01:00 EDT, 01:00 EST (an hour later in real time), 02:00 EST
        assertEquals(List.of("2026-11-01T01:00-04:00", "2026-11-01T01:00-05:00", "2026-11-01T02:00-05:00"),
                fires("0 * * * *", NEW_YORK, "2026-11-01T00:30:00", 3));
        List<String> quarter = fires("*/30 * * * *", NEW_YORK, "2026-11-01T00:50:00", 6);
        assertEquals(List.of("2026-11-01T01:00-04:00", "2026-11-01T01:30-04:00", "2026-11-01T01:00-05:00",
                "2026-11-01T01:30-05:00", "2026-11-01T02:00-05:00", "2026-11-01T02:30-05:00"), quarter);
        // starting inside the repeated hour (second pass) keeps going on the later offset
        Cron c = Cron.parse("*/30 * * * *", NEW_YORK);
        Instant secondPass = Instant.parse("2026-11-01T06:10:00Z"); // 01:10 EST
        assertEquals(Instant.parse("2026-11-01T06:30:00Z"), c.next(secondPass));
    }

    @Test
    void nextIsStrictlyAfter() {
        Cron c = Cron.parse("0 * * * * *", UTC);
        Instant t = Instant.parse("2026-05-01T10:00:00Z");
        assertEquals(Instant.parse("2026-05-01T10:01:00Z"), c.next(t));
        assertEquals(Instant.parse("2026-05-01T10:00:00Z"), c.next(t.minusNanos(1)));
    }

    @Test
    void badExpressionsAreRefusedWithAReason() {
        for (String bad : new String[] {"", " ", "* * * *", "* * * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *",
                "* * 32 * *", "* * * 13 *", "* * * * 8", "*/0 * * * *", "5-1 * * * *", "a * * * *", "* * * FOO *",
                "1,,2 * * * *", "-1 * * * *", "1- * * * *", "0 0 30 2 *", "0 0 31 4,6,9,11 *", "@often",
                "*/99999 * * * *", "1.5 * * * *", "\u0000 * * * *", "x".repeat(201)}) {
            Cron.InvalidCron e = assertThrows(Cron.InvalidCron.class, () -> Cron.parse(bad, UTC), "accepted '" + bad + "'");
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
        }
        assertThrows(Cron.InvalidCron.class, () -> Cron.parse("* * * * *", "Mars/Olympus"));
        assertThrows(Cron.InvalidCron.class, () -> Cron.parse("* * * * *", ""));
    }

    @Test
    void aLeapDayOnlyScheduleStillHasANextFire() {
        Cron c = Cron.parse("0 0 29 2 *", UTC);
        assertEquals(Instant.parse("2104-02-29T00:00:00Z"), c.next(Instant.parse("2096-03-01T00:00:00Z")));
    }
}
