package io.readpast.store;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small scanner of the lock-taking references in SQL text, in the order a statement takes
 * them (LockOrderTest; the model is docs/sqlserver.md's "Lock order"). Not a SQL parser: it
 * knows the forms Readpast's statements use, and LockOrderTest checks what it finds against
 * the documented table, so a form it misreads shows as a difference there.
 * <ul>
 *   <li>{@code X}: the target of UPDATE, DELETE, MERGE (and PostgreSQL's INSERT ... ON CONFLICT
 *       DO UPDATE): rows changed, locked to the end of the transaction;</li>
 *   <li>{@code I}: the target of an INSERT: new rows, which no other transaction waits for
 *       (the inserts whose key another can insert too are guarded by a locking read, X or U);</li>
 *   <li>{@code U}: a locking read, held to the end of the transaction: T-SQL UPDLOCK, XLOCK,
 *       HOLDLOCK, SERIALIZABLE, REPEATABLEREAD, TABLOCKX; PostgreSQL FOR UPDATE, FOR NO KEY
 *       UPDATE, FOR SHARE, FOR KEY SHARE; an application lock (sp_getapplock,
 *       pg_advisory_xact_lock), object {@value #GROUP_LOCK};</li>
 *   <li>{@code S}: a T-SQL read that takes shared locks for the time of the read (any read
 *       without NOLOCK or READUNCOMMITTED: under READ_COMMITTED_SNAPSHOT OFF every read does,
 *       with READCOMMITTEDLOCK under RCSI too). PostgreSQL's plain reads take no row lock and
 *       are not recorded;</li>
 *   <li>{@code C}: a COMMIT in a T-SQL batch (job_ack_claim commits its acks mid-batch): a
 *       transaction boundary.</li>
 * </ul>
 * A reference <em>skips</em> when it never waits for a lock another transaction holds:
 * READPAST, SKIP LOCKED, NOWAIT, or a write target reached through rows the same statement
 * locked that way.
 */
final class LockScanner {

    /** The lock object of an application or advisory lock: Readpast takes them for ordered groups only. */
    static final String GROUP_LOCK = "readpast:group";

    /** One lock-taking reference. {@code origin} is the file the text came from, {@code line} a line in it. */
    record Ref(String table, char kind, boolean skip, String origin, int line, String stmt) {

        /** Whether the reference keeps its locks to the end of the transaction. */
        boolean holds() {
            return kind == 'X' || kind == 'U';
        }

        /** Whether the reference can wait for a lock another transaction holds. */
        boolean waits() {
            return (kind == 'X' || kind == 'U' || kind == 'S') && !skip;
        }

        String where() {
            return origin + ":" + line;
        }

        @Override
        public String toString() {
            return kind == 'C' ? "COMMIT@" + where() : table + "[" + kind + (skip ? ",skip" : "") + "]@" + where();
        }
    }

    /** Where a position of the scanned text came from: a file, a line in it, and the statement it is part of. */
    record Origin(String file, int line, String stmt) {
    }

    private static final Set<String> NOT_ALIAS = Set.of("WITH", "WHERE", "ON", "INNER", "LEFT", "RIGHT", "FULL",
            "JOIN", "CROSS", "OUTER", "SET", "OUTPUT", "USING", "ORDER", "GROUP", "VALUES", "SELECT", "FOR", "UNION",
            "OPTION", "WHEN", "THEN", "AND", "OR", "HAVING", "LIMIT", "RETURNING", "DEFAULT", "FROM", "INTO",
            "EXCEPT", "INTERSECT", "IS", "NOT", "END", "ELSE", "DO", "OFFSET", "FETCH", "WINDOW", "APPLY", "AS", "IF",
            "BEGIN", "DECLARE", "EXEC", "EXECUTE", "RETURN", "WHILE", "BREAK", "CONTINUE", "THROW", "TABLESAMPLE");
    private static final Pattern TABLE = Pattern.compile("\\b(readpast_[a-z0-9_]+)\\b");
    private static final Pattern ALIAS = Pattern.compile("\\s+(?:(?i:AS)\\s+)?(\\w+)");
    private static final Pattern HINTS = Pattern.compile("\\s+(?i:WITH)\\s*\\(");
    private static final Pattern DML = Pattern.compile("(?i)\\b(UPDATE|DELETE|INSERT|MERGE)\\b");
    private static final Pattern DML_TARGET = Pattern.compile(
            "(?i)(?:\\s+TOP\\s*\\([^)]*\\))?(?:\\s+(?:FROM|INTO))?\\s+((?:dbo\\.)?[@#]?\\w+)");
    private static final Pattern NOT_DML_BEFORE = Pattern.compile("(?i)\\b(FOR|KEY|DO|ON|NO)\\s*$");
    private static final Pattern LOCKING_HINT = Pattern.compile(
            "\\b(UPDLOCK|XLOCK|HOLDLOCK|SERIALIZABLE|REPEATABLEREAD|TABLOCKX)\\b");
    private static final Pattern NO_LOCK_HINT = Pattern.compile("\\b(NOLOCK|READUNCOMMITTED)\\b");
    private static final Pattern READPAST = Pattern.compile("\\bREADPAST\\b");
    private static final Pattern PG_LOCKING = Pattern.compile(
            "(?i)\\bFOR\\s+(?:UPDATE|NO\\s+KEY\\s+UPDATE|SHARE|KEY\\s+SHARE)\\b(\\s+OF\\s+\\w+(?:\\s*,\\s*\\w+)*)?"
                    + "(\\s+(?:SKIP\\s+LOCKED|NOWAIT))?");
    private static final Pattern APPLOCK = Pattern.compile("(?i)\\b(sp_getapplock|pg_advisory_xact_lock)\\b");
    private static final Pattern CTE = Pattern.compile(
            "(?i)\\b(\\w+)\\s+AS\\s*(?:NOT\\s+)?(?:MATERIALIZED\\s*)?$");
    private static final Pattern COMMIT = Pattern.compile("(?i)\\bCOMMIT(\\s+TRAN(SACTION)?)?\\b");

    private final boolean tsql;
    private final Set<String> tables;
    /**
     * T-SQL reads (not write targets) that skip with READPAST but keep no real locks under
     * READ_COMMITTED_SNAPSHOT (no READCOMMITTEDLOCK): review round 2, N4.
     */
    final List<Ref> readpastWithoutRealLocks = new ArrayList<>();

    LockScanner(boolean tsql, Set<String> tables) {
        this.tsql = tsql;
        this.tables = tables;
    }

    /**
     * The references of {@code text} in the order they are taken; {@code originAt} names the
     * file and line of a position; COMMITs become boundaries when {@code commits} is true.
     */
    List<Ref> scan(String text, IntFunction<Origin> originAt, boolean commits) {
        String s = mask(text);
        int[] depth = depths(s);
        List<Ref> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i == s.length() || (s.charAt(i) == ';' && depth[i] == 0)) {
                scanStatement(s, depth, start, i, originAt, commits, out);
                start = i + 1;
            }
        }
        return out;
    }

    /** One statement, s[a, b): its references, reads where they stand, write targets at their statement's end. */
    private void scanStatement(String s, int[] depth, int a, int b, IntFunction<Origin> originAt, boolean commits,
                               List<Ref> out) {
        String c = s.substring(a, b);
        if (tsql && commits && COMMIT.matcher(c).find()) {
            Matcher m = COMMIT.matcher(c);
            m.find();
            Origin o = originAt.apply(a + m.start());
            out.add(new Ref(null, 'C', false, o.file(), o.line(), o.stmt()));
        }
        record At(int pos, Ref ref) {
        }
        List<At> found = new ArrayList<>();
        Matcher lock = APPLOCK.matcher(c);
        while (lock.find()) {
            Origin o = originAt.apply(a + lock.start());
            found.add(new At(lock.start(), new Ref(GROUP_LOCK, 'U', false, o.file(), o.line(), o.stmt())));
        }
        // every reference to a known table, with its alias and (T-SQL) its hints
        record TableRef(int pos, String table, String alias, String hints) {
        }
        List<TableRef> refs = new ArrayList<>();
        Matcher t = TABLE.matcher(c);
        while (t.find()) {
            String name = t.group(1);
            if (!tables.contains(name) || (t.end() < c.length() && c.charAt(t.end()) == '.')) {
                continue;
            }
            int p = t.end();
            String alias = name;
            Matcher w = ALIAS.matcher(c).region(p, c.length());
            if (w.lookingAt() && !NOT_ALIAS.contains(w.group(1).toUpperCase(Locale.ROOT))) {
                alias = w.group(1);
                p = w.end();
            }
            String hints = "";
            Matcher h = HINTS.matcher(c).region(p, c.length());
            if (tsql && h.lookingAt()) {
                int close = close(c, h.end() - 1);
                hints = c.substring(h.end(), close).toUpperCase(Locale.ROOT);
            }
            refs.add(new TableRef(t.start(), name, alias, hints));
        }
        // write targets
        Set<Integer> targets = new HashSet<>();
        List<int[]> writes = new ArrayList<>(); // {end, refIndex, kind}
        Matcher d = DML.matcher(c);
        while (d.find()) {
            if (NOT_DML_BEFORE.matcher(c.substring(Math.max(0, d.start() - 12), d.start())).find()) {
                continue;
            }
            Matcher tm = DML_TARGET.matcher(c).region(d.end(), c.length());
            if (!tm.lookingAt()) {
                continue;
            }
            String target = tm.group(1).replaceFirst("(?i)^dbo\\.", "");
            int index = -1;
            for (int k = 0; k < refs.size(); k++) {
                TableRef r = refs.get(k);
                boolean direct = tables.contains(target) && r.pos() == tm.start(1) + (tm.group(1).length() - target.length());
                boolean aliased = !tables.contains(target) && r.alias().equals(target) && !r.alias().equals(r.table());
                if (direct || aliased) {
                    index = k;
                    break;
                }
            }
            if (index < 0) {
                continue; // a table variable, a temporary table, a CTE
            }
            targets.add(index);
            int end = b - a;
            int dd = depth[a + d.start()];
            if (!tsql && dd > 0) {
                end = levelEnd(s, depth, a + d.start(), b) - a;
                // a data-modifying WITH query that nothing reads runs after the main statement
                // (PostgreSQL runs such queries to completion at its end); one that is read runs
                // as it is read, taken here where it stands
                String cte = cteName(c, depth, a, d.start());
                if (cte != null && !readElsewhere(c, cte)) {
                    end = b - a + 1;
                }
            }
            char kind = 'X';
            if (d.group(1).equalsIgnoreCase("INSERT")) {
                String extent = c.substring(d.start(), Math.min(end, c.length()));
                kind = !tsql && Pattern.compile("(?is)ON\\s+CONFLICT.*?DO\\s+UPDATE").matcher(extent).find() ? 'X' : 'I';
            }
            writes.add(new int[] {end, index, kind});
        }
        // reads
        List<int[]> skippingLocks = new ArrayList<>(); // {pos, refIndex}
        for (int k = 0; k < refs.size(); k++) {
            if (targets.contains(k)) {
                continue;
            }
            TableRef r = refs.get(k);
            Origin o = originAt.apply(a + r.pos());
            if (tsql) {
                if (NO_LOCK_HINT.matcher(r.hints()).find()) {
                    continue;
                }
                boolean skip = READPAST.matcher(r.hints()).find();
                char kind = LOCKING_HINT.matcher(r.hints()).find() ? 'U' : 'S';
                found.add(new At(r.pos(), new Ref(r.table(), kind, skip, o.file(), o.line(), o.stmt())));
                if (skip && !r.hints().contains("READCOMMITTEDLOCK")) {
                    readpastWithoutRealLocks.add(new Ref(r.table(), kind, true, o.file(), o.line(), o.stmt()));
                }
                if (kind == 'U' && skip) {
                    skippingLocks.add(new int[] {r.pos(), k});
                }
            } else {
                int p = a + r.pos();
                int end = levelEnd(s, depth, p, b);
                Matcher f = PG_LOCKING.matcher(s.substring(p, end));
                while (f.find()) {
                    if (depth[p + f.start()] != depth[p]) {
                        continue;
                    }
                    if (f.group(1) != null) {
                        Set<String> of = new HashSet<>();
                        for (String x : f.group(1).trim().substring(2).split(",")) {
                            of.add(x.trim());
                        }
                        if (!of.contains(r.alias())) {
                            break;
                        }
                    }
                    boolean skip = f.group(2) != null;
                    found.add(new At(r.pos(), new Ref(r.table(), 'U', skip, o.file(), o.line(), o.stmt())));
                    if (skip) {
                        skippingLocks.add(new int[] {r.pos(), k});
                    }
                    break;
                }
            }
        }
        for (int[] w : writes) {
            TableRef r = refs.get(w[1]);
            boolean skip = READPAST.matcher(r.hints()).find();
            for (int[] l : skippingLocks) {
                // rows this statement locked skipping others' (READPAST, SKIP LOCKED): the write
                // reaches those rows (reviews/tsql-review.md H3), it waits for nobody
                skip |= refs.get(l[1]).table().equals(r.table()) && l[0] < w[0];
            }
            int dmlPos = r.pos();
            Origin o = originAt.apply(a + dmlPos);
            found.add(new At(w[0], new Ref(r.table(), (char) w[2], skip, o.file(), o.line(), o.stmt())));
        }
        found.sort(java.util.Comparator.comparingInt(At::pos));
        for (At at : found) {
            out.add(at.ref());
        }
    }

    /** The name of the WITH query whose body holds position p of statement c (at a of the text), or null. */
    private static String cteName(String c, int[] depth, int a, int p) {
        int dd = depth[a + p];
        for (int k = p; k >= 0; k--) {
            if (c.charAt(k) == '(' && depth[a + k] == dd) {
                if (dd != 1) {
                    return null; // nested deeper than a WITH query's body
                }
                Matcher m = CTE.matcher(c.substring(0, k));
                return m.find() ? m.group(1) : null;
            }
        }
        return null;
    }

    /** Whether WITH query {@code name} is read anywhere but where it is defined. */
    private static boolean readElsewhere(String c, String name) {
        Matcher m = Pattern.compile("\\b" + Pattern.quote(name) + "\\b(?!\\s+(?i:AS)\\s+(?:(?i:NOT)\\s+)?"
                + "(?:(?i:MATERIALIZED)\\s+)?\\()").matcher(c);
        return m.find();
    }

    /** The end (exclusive) of the parenthesised level holding position p, or b at depth 0. */
    private static int levelEnd(String s, int[] depth, int p, int b) {
        int dd = depth[p];
        if (dd == 0) {
            return b;
        }
        for (int k = p; k < b; k++) {
            if (depth[k] < dd || (s.charAt(k) == ')' && depth[k] == dd)) {
                return k;
            }
        }
        return b;
    }

    private static int close(String c, int open) {
        int dd = 0;
        for (int k = open; k < c.length(); k++) {
            if (c.charAt(k) == '(') {
                dd++;
            } else if (c.charAt(k) == ')' && --dd == 0) {
                return k;
            }
        }
        throw new IllegalStateException("unbalanced parenthesis at " + open);
    }

    /** Nesting depth per position: '(' and ')' carry the depth of what they enclose. */
    private static int[] depths(String s) {
        int[] depth = new int[s.length() + 1];
        int d = 0;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '(') {
                depth[i] = ++d;
            } else if (ch == ')') {
                depth[i] = d;
                d = Math.max(0, d - 1);
            } else {
                depth[i] = d;
            }
        }
        return depth;
    }

    /**
     * The text with comments blanked, string contents replaced and T-SQL brackets removed, every
     * position (and line) kept: what is left is only code.
     */
    String mask(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int n = text.length();
        int i = 0;
        while (i < n) {
            char ch = text.charAt(i);
            if (text.startsWith("--", i)) {
                int j = text.indexOf('\n', i);
                j = j < 0 ? n : j;
                out.append(" ".repeat(j - i));
                i = j;
            } else if (text.startsWith("/*", i)) {
                int j = text.indexOf("*/", i + 2);
                j = j < 0 ? n : j + 2;
                for (int k = i; k < j; k++) {
                    out.append(text.charAt(k) == '\n' ? '\n' : ' ');
                }
                i = j;
            } else if (ch == '\'') {
                int j = i + 1;
                while (j < n) {
                    if (text.charAt(j) == '\'') {
                        if (j + 1 < n && text.charAt(j + 1) == '\'') {
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    j++;
                }
                out.append('\'');
                for (int k = i + 1; k < Math.min(j, n); k++) {
                    out.append(text.charAt(k) == '\n' ? '\n' : 'x');
                }
                if (j < n) {
                    out.append('\'');
                }
                i = j + 1;
            } else if (ch == '[' && tsql) {
                int j = text.indexOf(']', i);
                j = j < 0 ? n - 1 : j;
                out.append(' ').append(text, i + 1, j).append(' ');
                i = j + 1;
            } else {
                out.append(ch);
                i++;
            }
        }
        return out.toString();
    }
}
