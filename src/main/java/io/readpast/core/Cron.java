package io.readpast.core;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A cron expression in a time zone, and the next time it fires.
 *
 * <p>Five fields ({@code minute hour day-of-month month day-of-week}) or six (a leading
 * {@code second}). Each field is {@code *}, a value, a range {@code a-b}, a step {@code * /n} or
 * {@code a-b/n} or {@code a/n}, or a comma list of those. Months take {@code JAN}-{@code DEC},
 * days of week {@code SUN}-{@code SAT} (0 and 7 are both Sunday); {@code ?} means {@code *} in the
 * day fields. As in Vixie cron, when both day fields are restricted a day matches either of them.
 * {@code @yearly}, {@code @monthly}, {@code @weekly}, {@code @daily} and {@code @hourly} are
 * shorthands.
 *
 * <p>Fields are matched against the wall clock of the time zone. Daylight saving time:
 * a wall time the clocks skip (spring forward) fires once, at the moment they jump; a wall time
 * that happens twice (fall back) fires once, at its first occurrence, unless the expression
 * matches every hour (an hourly or more frequent schedule), which keeps firing through the
 * repeated hour, as in Vixie cron. Fire times are strictly increasing.
 */
public final class Cron {

    /** Longest expression accepted. */
    public static final int MAX_LENGTH = 200;
    /** How far ahead {@link #next} looks before it gives up (covers 29 February in a leap year). */
    private static final int SEARCH_YEARS = 9;

    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *", "@monthly", "0 0 1 * *",
            "@weekly", "0 0 * * 0", "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@hourly", "0 * * * *");
    private static final List<String> MONTHS =
            List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC");
    private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");

    private final String expression;
    private final ZoneId zone;
    private final BitSet seconds;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet daysOfMonth;
    private final BitSet months;
    private final BitSet daysOfWeek;
    private final boolean dayOfMonthAny;
    private final boolean dayOfWeekAny;
    private final boolean everyHour;

    private Cron(String expression, ZoneId zone, BitSet seconds, BitSet minutes, BitSet hours, BitSet daysOfMonth,
                 BitSet months, BitSet daysOfWeek, boolean dayOfMonthAny, boolean dayOfWeekAny) {
        this.expression = expression;
        this.zone = zone;
        this.seconds = seconds;
        this.minutes = minutes;
        this.hours = hours;
        this.daysOfMonth = daysOfMonth;
        this.months = months;
        this.daysOfWeek = daysOfWeek;
        this.dayOfMonthAny = dayOfMonthAny;
        this.dayOfWeekAny = dayOfWeekAny;
        this.everyHour = hours.cardinality() == 24;
    }

    /** Thrown for an expression or time zone that cannot be used; the message says why. */
    public static final class InvalidCron extends IllegalArgumentException {
        public InvalidCron(String message) {
            super(message, null);
        }
    }

    /** Parses an expression for a time zone (an IANA name such as Europe/Paris, or UTC). */
    public static Cron parse(String expression, String timeZone) {
        return parse(expression, zone(timeZone));
    }

    public static ZoneId zone(String timeZone) {
        if (timeZone == null || timeZone.isEmpty() || timeZone.length() > 100) {
            throw new InvalidCron("the time zone must be an IANA name such as Europe/Paris, or UTC");
        }
        try {
            return ZoneId.of(timeZone);
        } catch (DateTimeException e) {
            throw new InvalidCron("unknown time zone '" + printable(timeZone) + "': use an IANA name such as "
                    + "Europe/Paris, or UTC");
        }
    }

    public static Cron parse(String expression, ZoneId zone) {
        if (expression == null || expression.isBlank()) {
            throw new InvalidCron("the expression is empty");
        }
        if (expression.length() > MAX_LENGTH) {
            throw new InvalidCron("the expression is longer than " + MAX_LENGTH + " characters");
        }
        String text = expression.strip();
        if (text.startsWith("@")) {
            String macro = MACROS.get(text.toLowerCase(Locale.ROOT));
            if (macro == null) {
                throw new InvalidCron("unknown shorthand '" + printable(text) + "': use @yearly, @monthly, @weekly, "
                        + "@daily or @hourly");
            }
            text = macro;
        }
        String[] f = text.split("[ \t]+");
        if (f.length != 5 && f.length != 6) {
            throw new InvalidCron("an expression has 5 fields (minute hour day-of-month month day-of-week) or 6 "
                    + "(second first); got " + f.length);
        }
        int o = f.length - 5;
        BitSet seconds = o == 1 ? field("second", f[0], 0, 59, null) : bits(0);
        BitSet minutes = field("minute", f[o], 0, 59, null);
        BitSet hours = field("hour", f[o + 1], 0, 23, null);
        String dom = f[o + 2];
        String dow = f[o + 4];
        BitSet daysOfMonth = field("day-of-month", dom.equals("?") ? "*" : dom, 1, 31, null);
        BitSet months = field("month", f[o + 3], 1, 12, MONTHS);
        BitSet daysOfWeek = field("day-of-week", dow.equals("?") ? "*" : dow, 0, 7, DAYS);
        if (daysOfWeek.get(7)) {
            daysOfWeek.set(0);
            daysOfWeek.clear(7);
        }
        Cron cron = new Cron(expression, zone, seconds, minutes, hours, daysOfMonth, months, daysOfWeek,
                dom.startsWith("*") || dom.equals("?"), dow.startsWith("*") || dow.equals("?"));
        if (cron.nextLocal(LocalDateTime.of(2000, 1, 1, 0, 0).minusSeconds(1), 2000 + 2 * SEARCH_YEARS) == null) {
            throw new InvalidCron("the expression never fires (no such day, e.g. 30 February)");
        }
        return cron;
    }

    private static BitSet field(String name, String text, int min, int max, List<String> names) {
        BitSet set = new BitSet(max + 1);
        if (text.isEmpty()) {
            throw new InvalidCron("the " + name + " field is empty");
        }
        for (String part : text.split(",", -1)) {
            if (part.isEmpty()) {
                throw new InvalidCron("the " + name + " field has an empty list item");
            }
            int step = 1;
            String range = part;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                step = number(name, part.substring(slash + 1), 1, max + 1, null, "step");
                range = part.substring(0, slash);
            }
            int from;
            int to;
            if (range.equals("*")) {
                from = min;
                to = max;
            } else {
                int dash = range.indexOf('-', 1);
                if (dash >= 0) {
                    from = number(name, range.substring(0, dash), min, max, names, "value");
                    to = number(name, range.substring(dash + 1), min, max, names, "value");
                    if (to < from) {
                        throw new InvalidCron("the " + name + " range '" + printable(range) + "' runs backwards");
                    }
                } else {
                    from = number(name, range, min, max, names, "value");
                    // "5/15" means from 5 to the end, every 15
                    to = slash >= 0 ? max : from;
                }
            }
            for (int v = from; v <= to; v += step) {
                set.set(v);
            }
        }
        return set;
    }

    private static int number(String name, String text, int min, int max, List<String> names, String what) {
        if (names != null) {
            int i = names.indexOf(text.toUpperCase(Locale.ROOT));
            if (i >= 0) {
                return i + (names == MONTHS ? 1 : 0);
            }
        }
        if (text.isEmpty() || text.length() > 4 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new InvalidCron("the " + name + " field has '" + printable(text) + "', which is not a "
                    + (names == null ? "number" : "number or name"));
        }
        int v = Integer.parseInt(text);
        if (v < min || v > max) {
            throw new InvalidCron("the " + name + " " + what + " " + v + " is outside " + min + "-" + max);
        }
        return v;
    }

    private static BitSet bits(int value) {
        BitSet b = new BitSet();
        b.set(value);
        return b;
    }

    private static String printable(String s) {
        String t = s.length() > 40 ? s.substring(0, 40) + "..." : s;
        return t.replaceAll("\\p{Cntrl}", "?");
    }

    public String expression() {
        return expression;
    }

    public ZoneId zone() {
        return zone;
    }

    /** The first fire time strictly after {@code after}; null when there is none in the next years. */
    public Instant next(Instant after) {
        ZoneRules rules = zone.getRules();
        Instant first = nextOnWallClock(after, rules);
        if (everyHour) {
            // the repeated wall times of the next fall-back transition fire again, at the later offset
            ZoneOffsetTransition t = rules.nextTransition(after);
            if (t != null && t.isOverlap() && (first == null || t.getInstant().isBefore(first))) {
                LocalDateTime l = nextLocal(t.getDateTimeAfter().minusSeconds(1), t.getDateTimeAfter().getYear() + 1);
                if (l != null && l.isBefore(t.getDateTimeBefore())) {
                    Instant repeated = l.toInstant(t.getOffsetAfter());
                    if (repeated.isAfter(after) && (first == null || repeated.isBefore(first))) {
                        return repeated;
                    }
                }
            }
        }
        return first;
    }

    private Instant nextOnWallClock(Instant after, ZoneRules rules) {
        LocalDateTime l = LocalDateTime.ofInstant(after, zone);
        int lastYear = l.getYear() + SEARCH_YEARS;
        while (true) {
            l = nextLocal(l, lastYear);
            if (l == null) {
                return null;
            }
            List<ZoneOffset> offsets = rules.getValidOffsets(l);
            Instant candidate;
            if (offsets.isEmpty()) {
                // skipped by a spring-forward gap: fires when the clocks jump
                candidate = rules.getTransition(l).getInstant();
            } else {
                candidate = l.toInstant(offsets.get(0));
                if (!candidate.isAfter(after) && offsets.size() == 2 && everyHour) {
                    candidate = l.toInstant(offsets.get(1));
                }
            }
            if (candidate.isAfter(after)) {
                return candidate;
            }
        }
    }

    /** The first matching wall time strictly after {@code l}, or null past {@code lastYear}. */
    LocalDateTime nextLocal(LocalDateTime l, int lastYear) {
        LocalDateTime t = l.withNano(0).plusSeconds(1);
        while (t.getYear() <= lastYear) {
            if (!months.get(t.getMonthValue())) {
                t = t.withDayOfMonth(1).toLocalDate().atStartOfDay().plusMonths(1);
            } else if (!dayMatches(t)) {
                t = t.toLocalDate().atStartOfDay().plusDays(1);
            } else if (!hours.get(t.getHour())) {
                t = t.withMinute(0).withSecond(0).plusHours(1);
            } else if (!minutes.get(t.getMinute())) {
                t = t.withSecond(0).plusMinutes(1);
            } else if (!seconds.get(t.getSecond())) {
                int s = seconds.nextSetBit(t.getSecond());
                t = s < 0 ? t.withSecond(0).plusMinutes(1) : t.withSecond(s);
            } else {
                return t;
            }
        }
        return null;
    }

    private boolean dayMatches(LocalDateTime t) {
        boolean dom = daysOfMonth.get(t.getDayOfMonth());
        boolean dow = daysOfWeek.get(t.getDayOfWeek().getValue() % 7);
        if (dayOfMonthAny || dayOfWeekAny) {
            return dom && dow;
        }
        return dom || dow;
    }

    @Override
    public String toString() {
        return expression + " (" + zone + ")";
    }
}
