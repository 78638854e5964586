package io.readpast.store;

import io.readpast.config.Engine;
import io.readpast.store.LockScanner.Origin;
import io.readpast.store.LockScanner.Ref;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Holds the SQL to the lock-order table of docs/sqlserver.md ("Lock order"), on both engines,
 * without a database. For every transaction of the table, the statements it names are read as
 * the broker runs them (StatementCatalog's include expansion; the SQL enqueue's procedure from
 * its migration), their lock-taking references found in statement order ({@link LockScanner}),
 * and then:
 * <ul>
 *   <li>the objects they lock, in order, must be the ones the table lists for that engine (so
 *       the table and the SQL cannot drift apart);</li>
 *   <li>no reference that can wait for another transaction's lock may come after the same
 *       transaction holds a lock on an object later in the global order: that is the reverse
 *       order two transactions deadlock on. The reverse orders known and not fixed yet are
 *       {@link #KNOWN}, each named by the review item (or the finding) it belongs to; each must
 *       still occur (a fix must remove it from the list), and the list may only shrink;</li>
 *   <li>every statement that locks more than one object is in some transaction of the table.</li>
 * </ul>
 * A synthetic statement in the reverse order is reported (the check can fail).
 */
class LockOrderTest {

    static final Path DOC = Path.of("docs/sqlserver.md");
    static final String SECTION = "## Lock order";
    /** Element classes that exempt an element from the order check (see the doc). */
    static final Set<String> EXEMPT = Set.of("again", "guarded", "new");
    private static final String SS = "SQL Server";
    private static final String PG = "PostgreSQL";

    /** A reverse order the SQL still has: where it is, and the review item (or finding) it belongs to. */
    record Known(String item, String engine, String transaction, String waits, String after) {
        String key() {
            return engine + " | " + transaction + " | " + waits + " after " + after;
        }
    }

    /**
     * The reverse orders that are known and not fixed. This list may only shrink: fix one, and
     * its entry must go (the test fails while it is listed and no longer occurs); a new reverse
     * order is not added here but fixed. {@link #KNOWN_CEILING} is its size today.
     */
    static final List<Known> KNOWN = List.of(
            // N1 (tsql-review-2), what is left of it: settling a finished batch inserts its
            // callback job, and when the callback's queue has no row yet, creates it under
            // UPDLOCK, HOLDLOCK (include in job_insert) while the batch row is held. The claims'
            // exclusive queue-row locks, the rest of N1, are gone (V27, readpast_queue_tally)
            new Known("N1", SS, "batch ack and settle", "readpast_queue", "readpast_batch"),
            // N2 (tsql-review-2): promotion inside the claim's transaction; on PostgreSQL the acks of
            // ack-and-claim, in the same statement as its promotion, wait for their rows after it
            // (SQL Server commits the promotion first: include/claim_prelude.sql)
            new Known("N2", PG, "ack-and-claim", "readpast_job", "readpast_job (promoted)"));
    /** KNOWN's size today: lower it when an entry goes; never raise it. */
    static final int KNOWN_CEILING = 2;

    private static final Map<Engine, Set<String>> TABLES = new TreeMap<>();
    private static Doc doc;

    @BeforeAll
    static void load() throws IOException {
        for (Engine e : Engine.values()) {
            Set<String> names = new TreeSet<>();
            try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration", e.datasourceName()))) {
                for (Path f : files.toList()) {
                    Matcher m = Pattern.compile("(?i)CREATE\\s+(?:UNLOGGED\\s+)?TABLE\\s+(?:dbo\\.)?(readpast_\\w+)")
                            .matcher(Files.readString(f));
                    while (m.find()) {
                        names.add(m.group(1));
                    }
                }
            }
            TABLES.put(e, names);
        }
        doc = Doc.parse(Files.readString(DOC));
    }

    // ---------------------------------------------------------------------------------------
    // the checks

    @Test
    void theTableListsWhatTheSqlLocksInOrder() {
        List<String> problems = new ArrayList<>();
        for (Tx tx : doc.transactions()) {
            for (Engine e : Engine.values()) {
                List<List<Element>> scanned = scan(e, tx.statements());
                List<List<Element>> documented = tx.elements().get(e);
                if (!matches(scanned, documented)) {
                    problems.add(tx.name() + " (" + label(e) + "):\n    documented: " + render(documented)
                            + "\n    the SQL:    " + render(scanned) + "\n    references: " + refs(e, tx.statements()));
                }
            }
        }
        assertTrue(problems.isEmpty(), "docs/sqlserver.md's lock-order table differs from the SQL:\n"
                + String.join("\n", problems));
    }

    @Test
    void reverseOrdersAreOnlyTheKnownOnes() {
        Map<String, String> found = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Tx tx : doc.transactions()) {
            for (Engine e : Engine.values()) {
                List<List<Element>> documented = tx.elements().get(e);
                List<List<Element>> scanned = scan(e, tx.statements());
                if (!matches(scanned, documented)) {
                    continue; // reported by theTableListsWhatTheSqlLocksInOrder
                }
                List<List<Element>> classed = withDocClasses(scanned, documented);
                for (Violation v : violations(classed, doc.order(), sharedReadsNeverWait(e), problems,
                        tx.name() + " (" + label(e) + ")")) {
                    found.put(label(e) + " | " + tx.name() + " | " + v.waits().label() + " after " + v.after().label(),
                            v.where());
                }
                // the doc marks exactly the elements that wait in the reverse order
                for (int p = 0; p < documented.size(); p++) {
                    for (Element d : documented.get(p)) {
                        if (d.marker() == null) {
                            continue;
                        }
                        boolean listed = KNOWN.stream().anyMatch(k -> k.item().equals(d.marker())
                                && k.engine().equals(label(e)) && k.transaction().equals(tx.name())
                                && k.waits().equals(d.label()));
                        if (!listed) {
                            problems.add(tx.name() + " (" + label(e) + "): the table marks " + d.label() + " ["
                                    + d.marker() + "], which is no known exception of LockOrderTest.KNOWN");
                        }
                    }
                }
            }
        }
        Set<String> known = new LinkedHashSet<>();
        for (Known k : KNOWN) {
            known.add(k.key());
            if (!found.containsKey(k.key())) {
                problems.add("fixed, or moved: " + k.item() + " " + k.key() + " no longer occurs: remove it from KNOWN "
                        + "and its mark from the table (and lower KNOWN_CEILING)");
            }
            Tx tx = doc.transaction(k.transaction());
            boolean marked = tx != null && tx.elements().get(engine(k.engine())).stream().flatMap(List::stream)
                    .anyMatch(d -> k.item().equals(d.marker()) && d.label().equals(k.waits()));
            if (!marked) {
                problems.add(k.item() + " " + k.key() + ": the table must mark " + k.waits() + " [" + k.item() + "] in "
                        + "that transaction");
            }
        }
        for (Map.Entry<String, String> f : found.entrySet()) {
            if (!known.contains(f.getKey())) {
                problems.add("reverse lock order: " + f.getKey() + " (" + f.getValue() + ")");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertTrue(KNOWN.size() <= KNOWN_CEILING, "KNOWN may only shrink: " + KNOWN.size() + " > " + KNOWN_CEILING);
    }

    @Test
    void everyStatementThatLocksTwoObjectsIsInTheTable() {
        Set<String> named = new TreeSet<>();
        doc.transactions().forEach(tx -> named.addAll(tx.statements()));
        List<String> missing = new ArrayList<>();
        for (Engine e : Engine.values()) {
            for (Stmt stmt : Stmt.values()) {
                Set<String> objects = new TreeSet<>();
                boolean holds = false;
                for (Ref r : statement(e, stmt.name().toLowerCase(java.util.Locale.ROOT))) {
                    if (r.kind() != 'C' && (r.holds() || r.kind() == 'I' || r.waits())) {
                        objects.add(r.table());
                    }
                    holds |= r.holds();
                }
                // a statement that keeps a lock and takes another (a read that only waits, in a
                // statement that keeps nothing, cannot close a circle)
                if (holds && objects.size() > 1 && !named.contains(stmt.name().toLowerCase(java.util.Locale.ROOT))) {
                    missing.add(stmt.fileName() + " (" + label(e) + "): " + objects);
                }
            }
        }
        assertTrue(missing.isEmpty(), "statements that lock more than one object, in no transaction of "
                + "docs/sqlserver.md's lock-order table:\n" + String.join("\n", missing));
    }

    /**
     * Review round 2, N4: under READ_COMMITTED_SNAPSHOT a read keeps no locks unless told to, so
     * READPAST on it would skip nothing and the rows it reads could be changing: every T-SQL read
     * that skips with READPAST also says READCOMMITTEDLOCK (write targets take real locks anyway).
     * The check can fail: a synthetic read without it is reported.
     */
    @Test
    void everyReadpastReadKeepsRealLocksUnderRcsi() {
        List<String> found = new ArrayList<>();
        for (Stmt stmt : Stmt.values()) {
            String path = StatementCatalog.resourcePath(Engine.SQLSERVER, stmt);
            List<String> missing = new ArrayList<>();
            String text = StatementCatalog.expand(Engine.SQLSERVER, null, path, resource(path), 0, missing);
            LockScanner scanner = new LockScanner(true, TABLES.get(Engine.SQLSERVER));
            scanner.scan(text, origins(Engine.SQLSERVER, stmt.fileName(), text, stmt.fileName()), true);
            scanner.readpastWithoutRealLocks.forEach(r -> found.add(r.toString()));
        }
        assertEquals(List.of(), found, "READPAST reads without READCOMMITTEDLOCK");
        LockScanner synthetic = new LockScanner(true, TABLES.get(Engine.SQLSERVER));
        synthetic.scan("""
                SELECT j.id FROM readpast_job AS j WITH (UPDLOCK, READPAST, ROWLOCK) WHERE j.status = 0;
                UPDATE t SET t.status = 1 FROM readpast_job AS t WITH (ROWLOCK, READPAST) WHERE t.id = 1;
                """, p -> new Origin("synthetic", 1, "synthetic"), true);
        assertEquals(1, synthetic.readpastWithoutRealLocks.size(), "the read is reported, the write target not");
    }

    /** The check can fail: a statement that locks the job row, then waits for a queue row, is reported. */
    @Test
    void aReversedOrderIsReported() {
        Map<String, Integer> order = doc.order();
        assertTrue(order.get("readpast_queue") < order.get("readpast_job"), "the table orders queue rows before job rows");
        String tsqlReversed = """
                UPDATE j SET j.attempt = j.attempt + 1 FROM readpast_job AS j WITH (ROWLOCK) WHERE j.id = @id;
                SELECT q.name FROM readpast_queue AS q WITH (UPDLOCK, ROWLOCK) WHERE q.name = @queue;
                """;
        String tsqlForward = """
                SELECT q.name FROM readpast_queue AS q WITH (UPDLOCK, ROWLOCK) WHERE q.name = @queue;
                UPDATE j SET j.attempt = j.attempt + 1 FROM readpast_job AS j WITH (ROWLOCK) WHERE j.id = @id;
                """;
        // a read that skips what others hold never waits: not a reverse order
        String tsqlSkipping = """
                UPDATE j SET j.attempt = j.attempt + 1 FROM readpast_job AS j WITH (ROWLOCK) WHERE j.id = @id;
                SELECT q.name FROM readpast_queue AS q WITH (UPDLOCK, READPAST, ROWLOCK) WHERE q.name = @queue;
                """;
        String pgReversed = """
                UPDATE readpast_job SET attempt = attempt + 1 WHERE id = :id;
                SELECT name FROM readpast_queue WHERE name = :queue FOR NO KEY UPDATE;
                """;
        String pgSkipping = """
                UPDATE readpast_job SET attempt = attempt + 1 WHERE id = :id;
                SELECT name FROM readpast_queue WHERE name = :queue FOR UPDATE SKIP LOCKED;
                """;
        assertEquals(List.of("readpast_queue after readpast_job"), synthetic(Engine.SQLSERVER, tsqlReversed));
        assertEquals(List.of(), synthetic(Engine.SQLSERVER, tsqlForward));
        assertEquals(List.of(), synthetic(Engine.SQLSERVER, tsqlSkipping));
        // a plain read (shared locks) of a queue row after job rows: no transaction holds a queue
        // row exclusively and then waits (claims keep update locks there, V27), so it cannot close
        // a circle; a plain read of job rows after archive rows can (claims hold job rows
        // exclusively and go on waiting), and is reported
        String tsqlSharedQueue = """
                UPDATE j SET j.attempt = j.attempt + 1 FROM readpast_job AS j WITH (ROWLOCK) WHERE j.id = @id;
                SELECT q.webhook_url FROM readpast_queue AS q WHERE q.name = @queue;
                """;
        String tsqlSharedJob = """
                DELETE a FROM readpast_job_archive AS a WITH (ROWLOCK) WHERE a.id = @id;
                SELECT j.id FROM readpast_job AS j WHERE j.id = @other;
                """;
        assertTrue(sharedReadsNeverWait(Engine.SQLSERVER).contains("readpast_queue"), "queue rows: "
                + sharedReadsNeverWait(Engine.SQLSERVER));
        assertFalse(sharedReadsNeverWait(Engine.SQLSERVER).contains("readpast_job"));
        assertEquals(List.of(), synthetic(Engine.SQLSERVER, tsqlSharedQueue));
        assertEquals(List.of("readpast_job after readpast_job_archive"), synthetic(Engine.SQLSERVER, tsqlSharedJob));
        assertEquals(List.of("readpast_queue after readpast_job"), synthetic(Engine.POSTGRESQL, pgReversed));
        assertEquals(List.of(), synthetic(Engine.POSTGRESQL, pgSkipping));
    }

    /** The scanner reads the forms the statements use: hints, aliases, targets after their reads. */
    @Test
    void theScannerReadsHintsAliasesAndTargets() {
        List<Ref> t = new LockScanner(true, TABLES.get(Engine.SQLSERVER)).scan("""
                -- UPDATE readpast_queue in a comment is no reference
                INSERT INTO @t (id)
                SELECT j.id FROM readpast_job AS j WITH (UPDLOCK, ROWLOCK, FORCESEEK) WHERE j.id = 1;
                UPDATE s SET s.status = 0
                FROM readpast_job AS s WITH (ROWLOCK, READPAST, FORCESEEK)
                INNER JOIN (SELECT TOP (1) x.id FROM readpast_key_rate AS x WITH (READPAST, INDEX (ix_readpast_job_claim))) AS p
                    ON s.id = p.id;
                INSERT INTO readpast_webhook (job_id, url) SELECT m.id, q.webhook_url FROM @moved AS m
                LEFT JOIN readpast_queue AS q WITH (NOLOCK) ON q.name = m.queue;
                DELETE TOP (@limit) FROM readpast_job_archive WITH (READPAST, ROWLOCK) WHERE finished_at < @cutoff;
                IF @@TRANCOUNT > 0 BEGIN COMMIT TRANSACTION; END;
                EXEC @r = sp_getapplock @resource, N'Exclusive', N'Transaction', 10000;
                """, p -> new Origin("t", 1, "t"), true);
        assertEquals("[readpast_job[U], readpast_key_rate[S,skip], readpast_job[X,skip], readpast_webhook[I], "
                + "readpast_job_archive[X,skip], COMMIT, readpast:group[U]]", brief(t));
        List<Ref> p = new LockScanner(false, TABLES.get(Engine.POSTGRESQL)).scan("""
                WITH picked AS (
                    SELECT j.id FROM readpast_job AS j, readpast_queue AS q
                    WHERE j.queue = q.name ORDER BY j.id LIMIT 5 FOR UPDATE OF j SKIP LOCKED
                ), moved AS (
                    DELETE FROM readpast_batch AS b USING picked AS p WHERE b.id = p.id RETURNING b.id
                )
                INSERT INTO readpast_key_rate AS r (queue, claims) SELECT 'q', 1 FROM moved
                ON CONFLICT (queue) DO UPDATE SET claims = r.claims + 1
                """, x -> new Origin("t", 1, "t"), true);
        assertEquals("[readpast_job[U,skip], readpast_batch[X], readpast_key_rate[X]]", brief(p));
    }

    // ---------------------------------------------------------------------------------------
    // the order check

    /** A scanned run of references to one object (and class), or its documented counterpart. */
    record Element(String table, String cls, String marker, List<Ref> refs) {
        String label() {
            return cls == null || cls.isEmpty() ? table : table + " (" + cls + ")";
        }

        String doc() {
            return "`" + table + "`" + (cls == null || cls.isEmpty() ? "" : " (" + cls + ")");
        }
    }

    record Violation(Element waits, Element after, String where) {
    }

    /**
     * The reverse orders of one transaction (parts split at commits): a reference that can wait,
     * to an object earlier in the order than one this transaction holds already.
     */
    static List<Violation> violations(List<List<Element>> parts, Map<String, Integer> order, Set<String> sharedSafe,
                                      List<String> problems, String what) {
        List<Violation> out = new ArrayList<>();
        for (List<Element> part : parts) {
            Element held = null;
            int heldRank = Integer.MIN_VALUE;
            Set<String> seen = new LinkedHashSet<>();
            for (Element e : part) {
                if (EXEMPT.contains(e.cls())) {
                    continue;
                }
                Integer rank = order.get(e.label());
                if (rank == null) {
                    problems.add(what + ": " + e.label() + " is not in the lock order of docs/sqlserver.md");
                    continue;
                }
                for (Ref r : e.refs()) {
                    // a shared-lock read waits only for an exclusive lock; where no transaction
                    // holds one on this object and then waits for anything, it cannot close a circle
                    boolean waits = r.waits() && !(r.kind() == 'S' && sharedSafe.contains(r.table()));
                    if (waits && rank < heldRank && seen.add(e.label() + "|" + held.label())) {
                        out.add(new Violation(e, held, r.where() + " waits, " + held.refs().get(0).where()
                                + " holds"));
                    }
                }
                if (e.refs().stream().anyMatch(Ref::holds) && rank > heldRank) {
                    held = e;
                    heldRank = rank;
                }
            }
        }
        return out;
    }

    /**
     * The objects a shared-lock read (a T-SQL read without NOLOCK: S) of which never waits for a
     * transaction that could wait in turn: no transaction of the table holds an exclusive lock
     * (X) on the object and afterwards, before its commit, makes a reference that can wait. An S
     * lock is compatible with the update locks (U) claims keep on queue rows, so on such an
     * object an S read waits at most for a holder that goes on to its commit without waiting
     * (review round 2, N1: claims no longer write the queue row, V27). Statements that lock one
     * object only are not in the table; they cannot wait for a second object either.
     */
    private static final Map<Engine, Set<String>> SHARED_SAFE = new java.util.concurrent.ConcurrentHashMap<>();

    private Set<String> sharedReadsNeverWait(Engine e) {
        return SHARED_SAFE.computeIfAbsent(e, k -> {
            Set<String> tables = new TreeSet<>(TABLES.get(e));
            for (Tx tx : doc.transactions()) {
                for (List<Element> part : scan(e, tx.statements())) {
                    for (int i = 0; i < part.size(); i++) {
                        Element held = part.get(i);
                        if (held.refs().stream().noneMatch(r -> r.kind() == 'X')) {
                            continue;
                        }
                        for (int j = i + 1; j < part.size(); j++) {
                            Element later = part.get(j);
                            if (!later.table().equals(held.table()) && !EXEMPT.contains(later.cls())
                                    && later.refs().stream().anyMatch(Ref::waits)) {
                                tables.remove(held.table());
                            }
                        }
                    }
                }
            }
            return tables;
        });
    }

    private List<String> synthetic(Engine e, String sql) {
        List<Ref> refs = new LockScanner(e == Engine.SQLSERVER, TABLES.get(e)).scan(sql, p -> new Origin("synthetic",
                1 + (int) sql.substring(0, Math.min(p, sql.length())).chars().filter(c -> c == '\n').count(), "synthetic"), true);
        List<String> problems = new ArrayList<>();
        List<String> out = new ArrayList<>();
        for (Violation v : violations(elements(refs, doc), doc.order(), sharedReadsNeverWait(e), problems, "synthetic")) {
            out.add(v.waits().label() + " after " + v.after().label());
        }
        assertTrue(problems.isEmpty(), problems.toString());
        return out;
    }

    // ---------------------------------------------------------------------------------------
    // statements as the broker runs them

    /** The references of a transaction's statements, one after the other, as elements split at commits. */
    private List<List<Element>> scan(Engine e, List<String> statements) {
        List<Ref> all = new ArrayList<>();
        for (String s : statements) {
            all.addAll(statement(e, s));
        }
        return elements(all, doc);
    }

    private String refs(Engine e, List<String> statements) {
        List<Ref> all = new ArrayList<>();
        for (String s : statements) {
            all.addAll(statement(e, s));
        }
        return all.toString();
    }

    private static final Map<String, List<Ref>> CACHE = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * One statement's references: a statement file (Stmt) expanded as StatementCatalog loads it,
     * or a procedure or function of the migrations (the SQL enqueue's), by name.
     */
    static List<Ref> statement(Engine e, String name) {
        return CACHE.computeIfAbsent(e + ":" + name, k -> {
            boolean tsql = e == Engine.SQLSERVER;
            LockScanner scanner = new LockScanner(tsql, TABLES.get(e));
            Stmt stmt = null;
            // "job_claim without claim_prelude.sql": the statement as a transaction runs it with
            // the include of that fragment left out (job_claim's @prelude = 0 inside a transaction
            // that queue_lock_capped began, which ran the prelude itself)
            String leaveOut = null;
            String base = name;
            int without = name.indexOf(" without ");
            if (without > 0) {
                leaveOut = name.substring(without + " without ".length()).strip();
                base = name.substring(0, without);
            }
            for (Stmt s : Stmt.values()) {
                if (s.name().equalsIgnoreCase(base)) {
                    stmt = s;
                }
            }
            if (stmt == null) {
                Routine r = routine(e, name);
                return scanner.scan(r.body(), p -> new Origin(r.file() + "#" + name, r.firstLine()
                        + (int) r.body().substring(0, p).chars().filter(c -> c == '\n').count(), name), false);
            }
            String path = StatementCatalog.resourcePath(e, stmt);
            String raw = resource(path);
            if (raw == null) {
                throw new IllegalStateException("no " + path);
            }
            String text;
            if (leaveOut == null) {
                List<String> missing = new ArrayList<>();
                text = StatementCatalog.expand(e, null, path, raw, 0, missing);
                assertTrue(missing.isEmpty(), missing.toString());
            } else {
                text = StatementCatalog.expandedText(e, stmt.fileName(), Set.of(leaveOut));
            }
            IntFunction<Origin> origins = origins(e, stmt.fileName(), text, base);
            return scanner.scan(text, origins, true);
        });
    }

    /**
     * Where each position of an expanded statement came from: StatementCatalog.expand puts a line
     * "-- from include/NAME" before each fragment's text, which is the fragment expanded alone.
     */
    private static IntFunction<Origin> origins(Engine e, String file, String text, String stmt) {
        record Extent(int start, int end, String file) {
        }
        List<Extent> extents = new ArrayList<>();
        Matcher m = Pattern.compile("-- from include/([a-z0-9_]+\\.sql)\n").matcher(text);
        while (m.find()) {
            String path = "sql/" + e.datasourceName() + "/include/" + m.group(1);
            String body = StatementCatalog.expand(e, null, path, resource(path), 1, new ArrayList<>()).stripTrailing();
            extents.add(new Extent(m.end(), m.end() + body.length(), "include/" + m.group(1)));
        }
        return p -> {
            Extent in = null;
            for (Extent x : extents) {
                if (x.start() <= p && p < x.end() && (in == null || x.start() >= in.start())) {
                    in = x;
                }
            }
            if (in != null) {
                return new Origin(in.file(), 1 + count(text, in.start(), p), stmt);
            }
            // a line of the statement file itself: the expanded lines of fragments before it taken out
            int line = 1 + count(text, 0, p);
            for (Extent x : extents) {
                boolean topLevel = extents.stream().noneMatch(o -> o != x && o.start() <= x.start() && x.end() <= o.end());
                if (topLevel && x.end() <= p) {
                    line -= 1 + count(text, x.start(), x.end());
                }
            }
            return new Origin(file, line, stmt);
        };
    }

    private static int count(String text, int from, int to) {
        int n = 0;
        for (int i = from; i < to && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    record Routine(String file, int firstLine, String body) {
    }

    /**
     * A procedure (T-SQL, up to its GO) or function (PostgreSQL, its dollar-quoted body) as the
     * last migration that creates it has it.
     */
    static Routine routine(Engine e, String name) {
        Routine found = null;
        Path dir = Path.of("src/main/resources/db/migration", e.datasourceName());
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> sorted = files.sorted(java.util.Comparator.comparingInt(
                    f -> Integer.parseInt(f.getFileName().toString().replaceAll("^V(\\d+)__.*", "$1")))).toList();
            for (Path f : sorted) {
                String text = Files.readString(f);
                Pattern create = e == Engine.SQLSERVER
                        ? Pattern.compile("(?im)^CREATE\\s+(?:OR\\s+ALTER\\s+)?PROCEDURE\\s+(?:dbo\\.)?" + name + "\\b")
                        : Pattern.compile("(?im)^CREATE\\s+(?:OR\\s+REPLACE\\s+)?FUNCTION\\s+" + name + "\\s*\\(");
                Matcher m = create.matcher(text);
                if (!m.find()) {
                    continue;
                }
                int start;
                int end;
                if (e == Engine.SQLSERVER) {
                    start = m.start();
                    Matcher go = Pattern.compile("(?im)^GO\\s*$").matcher(text);
                    end = go.find(start) ? go.start() : text.length();
                } else {
                    Matcher tag = Pattern.compile("\\$(\\w*)\\$").matcher(text);
                    if (!tag.find(m.end())) {
                        throw new IllegalStateException(name + " in " + f + " has no dollar-quoted body");
                    }
                    start = tag.end();
                    end = text.indexOf(tag.group(), start);
                }
                found = new Routine(f.getFileName().toString(), 1 + count(text, 0, start), text.substring(start, end));
            }
        } catch (IOException x) {
            throw new IllegalStateException(x);
        }
        if (found == null) {
            throw new IllegalStateException("no statement and no routine named " + name + " (" + e + ")");
        }
        return found;
    }

    private static String resource(String path) {
        try (InputStream in = LockOrderTest.class.getClassLoader().getResourceAsStream(path)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException x) {
            throw new IllegalStateException(x);
        }
    }

    // ---------------------------------------------------------------------------------------
    // elements: runs of one object (and class), split at commits

    /** References grouped into elements: consecutive ones of one table and class; parts split at commits. */
    static List<List<Element>> elements(List<Ref> refs, Doc doc) {
        List<List<Element>> parts = new ArrayList<>();
        List<Element> part = new ArrayList<>();
        parts.add(part);
        for (Ref r : refs) {
            if (r.kind() == 'C') {
                part = new ArrayList<>();
                parts.add(part);
                continue;
            }
            String cls = doc.classOf(r);
            Element last = part.isEmpty() ? null : part.get(part.size() - 1);
            if (last != null && last.table().equals(r.table()) && last.cls().equals(cls)) {
                last.refs().add(r);
            } else {
                List<Ref> rs = new ArrayList<>();
                rs.add(r);
                part.add(new Element(r.table(), cls, null, rs));
            }
        }
        parts.removeIf(List::isEmpty);
        return parts;
    }

    /** Whether the scan and the table agree: the same objects in the same order, classes as derived (or exempt). */
    static boolean matches(List<List<Element>> scanned, List<List<Element>> documented) {
        if (scanned.size() != documented.size()) {
            return false;
        }
        for (int p = 0; p < scanned.size(); p++) {
            List<Element> s = scanned.get(p);
            List<Element> d = documented.get(p);
            if (s.size() != d.size()) {
                return false;
            }
            for (int i = 0; i < s.size(); i++) {
                if (!s.get(i).table().equals(d.get(i).table())) {
                    return false;
                }
                // a class the order gives the statement or fragment must be written; a reference
                // without one may be given one by the table (a claim about which rows it locks)
                if (!s.get(i).cls().isEmpty() && !s.get(i).cls().equals(d.get(i).cls())) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The scanned elements with the table's classes (and marks). */
    static List<List<Element>> withDocClasses(List<List<Element>> scanned, List<List<Element>> documented) {
        List<List<Element>> out = new ArrayList<>();
        for (int p = 0; p < scanned.size(); p++) {
            List<Element> part = new ArrayList<>();
            for (int i = 0; i < scanned.get(p).size(); i++) {
                Element s = scanned.get(p).get(i);
                Element d = documented.get(p).get(i);
                part.add(new Element(s.table(), d.cls(), d.marker(), s.refs()));
            }
            out.add(part);
        }
        return out;
    }

    static String render(List<List<Element>> parts) {
        List<String> out = new ArrayList<>();
        for (List<Element> part : parts) {
            out.add(String.join(" → ", part.stream().map(Element::doc).toList()));
        }
        return String.join(" ‖ ", out);
    }

    private static String brief(List<Ref> refs) {
        return refs.stream().map(r -> r.kind() == 'C' ? "COMMIT" : r.table() + "[" + r.kind() + (r.skip() ? ",skip" : "")
                + "]").toList().toString();
    }

    static String label(Engine e) {
        return e == Engine.SQLSERVER ? "SQL Server" : "PostgreSQL";
    }

    static Engine engine(String label) {
        return label.equals("SQL Server") ? Engine.SQLSERVER : Engine.POSTGRESQL;
    }

    // ---------------------------------------------------------------------------------------
    // the table in docs/sqlserver.md

    /** A transaction of the table: its statements in order, and per engine its elements (parts split at commits). */
    record Tx(String name, List<String> statements, Map<Engine, List<List<Element>>> elements) {
    }

    /**
     * The section "Lock order" of docs/sqlserver.md: the order (a table whose rows begin with
     * their rank), with the classes some statements' or fragments' references get, and the
     * transactions (a table "transaction | statements | SQL Server | PostgreSQL").
     */
    record Doc(Map<String, Integer> order, Map<String, String> classes, List<Tx> transactions) {

        private static final Pattern ELEMENT = Pattern.compile(
                "`([a-z_:]+)`(?:\\s*\\(([a-z-]+)\\))?(?:\\s*\\[([A-Z]+\\d+)\\])?|‖");
        private static final Pattern TICKED = Pattern.compile("`([^`]+)`");

        static Doc parse(String text) {
            int at = text.indexOf("\n" + SECTION + "\n");
            assertTrue(at >= 0, "docs/sqlserver.md has no section '" + SECTION + "'");
            int end = text.indexOf("\n## ", at + 1);
            String section = text.substring(at, end < 0 ? text.length() : end);
            Map<String, Integer> order = new LinkedHashMap<>();
            Map<String, String> classes = new LinkedHashMap<>();
            List<Tx> txs = new ArrayList<>();
            boolean inTx = false;
            for (String line : section.split("\n")) {
                if (!line.startsWith("|")) {
                    inTx = false;
                    continue;
                }
                String[] cells = line.substring(1, line.lastIndexOf('|')).split("\\|", -1);
                for (int i = 0; i < cells.length; i++) {
                    cells[i] = cells[i].strip();
                }
                if (cells[0].equals("transaction")) {
                    inTx = true;
                    continue;
                }
                if (cells[0].startsWith("---")) {
                    continue;
                }
                if (cells[0].matches("\\d+|—|-")) {
                    // rank | lock (`table` (class)) | rows | taken by (`statement` or `include/x.sql`, for a class)
                    Matcher m = ELEMENT.matcher(cells[1]);
                    assertTrue(m.find() && m.group(1) != null, "an order row without a lock: " + line);
                    String label = m.group(2) == null ? m.group(1) : m.group(1) + " (" + m.group(2) + ")";
                    if (cells[0].matches("\\d+")) {
                        order.put(label, Integer.parseInt(cells[0]));
                    } else {
                        assertTrue(EXEMPT.contains(String.valueOf(m.group(2))), "an order row without a rank must be "
                                + "one of the exempt classes " + EXEMPT + ": " + line);
                    }
                    if (m.group(2) != null && cells.length > 3) {
                        Matcher t = TICKED.matcher(cells[3]);
                        while (t.find()) {
                            classes.put(m.group(1) + "|" + t.group(1), m.group(2));
                        }
                    }
                } else if (inTx && cells.length >= 4) {
                    List<String> statements = new ArrayList<>();
                    Matcher t = TICKED.matcher(cells[1]);
                    while (t.find()) {
                        statements.add(t.group(1));
                    }
                    Map<Engine, List<List<Element>>> elements = new TreeMap<>();
                    elements.put(Engine.SQLSERVER, cell(cells[2]));
                    elements.put(Engine.POSTGRESQL, cell(cells[3]));
                    txs.add(new Tx(cells[0].replace("*", ""), statements, elements));
                }
            }
            assertFalse(order.isEmpty(), "the lock order table of docs/sqlserver.md is empty");
            assertFalse(txs.isEmpty(), "the transactions table of docs/sqlserver.md is empty");
            return new Doc(order, classes, txs);
        }

        private static List<List<Element>> cell(String cell) {
            List<List<Element>> parts = new ArrayList<>();
            List<Element> part = new ArrayList<>();
            parts.add(part);
            Matcher m = ELEMENT.matcher(cell);
            while (m.find()) {
                if (m.group().equals("‖")) {
                    part = new ArrayList<>();
                    parts.add(part);
                } else {
                    part.add(new Element(m.group(1), m.group(2) == null ? "" : m.group(2), m.group(3), List.of()));
                }
            }
            parts.removeIf(List::isEmpty);
            return parts;
        }

        /** The class a reference gets: the one the order gives its statement or fragment for its table, else none. */
        String classOf(Ref r) {
            String byFile = classes.get(r.table() + "|" + r.origin());
            if (byFile != null) {
                return byFile;
            }
            String byStatement = classes.get(r.table() + "|" + r.stmt());
            return byStatement == null ? "" : byStatement;
        }

        Tx transaction(String name) {
            return transactions.stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
        }
    }
}
