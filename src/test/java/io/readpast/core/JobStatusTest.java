package io.readpast.core;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one status enum agrees with the schema, and its transition table has the lifecycle's shape. */
class JobStatusTest {

    @Test
    void storedCodesMatchEachTablesCheckConstraint() throws Exception {
        Set<Integer> hot = new TreeSet<>();
        Arrays.stream(JobStatus.values()).filter(s -> !s.terminal()).forEach(s -> hot.addAll(s.storedCodes()));
        Set<Integer> archive = Set.of(JobStatus.SUCCEEDED.code(), JobStatus.CANCELLED.code());
        Set<Integer> dead = Set.of(JobStatus.DEAD.code());
        for (String engine : new String[] {"postgresql", "mssql"}) {
            String schema = Files.readString(Path.of("src/main/resources/db/migration", engine, "V1__schema.sql"));
            Set<Integer> hotChecked = laterCheck(engine);
            assertEquals(hot, hotChecked != null ? hotChecked : checked(schema, "readpast_job"), engine + " hot table");
            // the SQL Server schema checks the hot table only
            Set<Integer> archived = checked(schema, "readpast_job_archive");
            assertTrue(archived == null && engine.equals("mssql") || archive.equals(archived), engine + " archive");
            Set<Integer> deadChecked = checked(schema, "readpast_job_dead");
            assertTrue(deadChecked == null && engine.equals("mssql") || dead.equals(deadChecked), engine + " dead letters");
        }
    }

    @Test
    void transitionsFollowTheLifecycle() {
        assertEquals(Set.of(JobStatus.LEASED, JobStatus.CANCELLED), JobStatus.PENDING.next());
        assertTrue(JobStatus.SUCCEEDED.next().isEmpty(), "a success is final");
        for (JobStatus s : JobStatus.values()) {
            assertFalse(s.canBecome(s), s + " does not become itself");
            if (s.terminal()) {
                // out of the hot table only by requeue, back to PENDING
                assertTrue(s.next().stream().allMatch(n -> n == JobStatus.PENDING), s + " -> " + s.next());
            } else {
                assertTrue(s.canBecome(JobStatus.CANCELLED), s + " can be cancelled");
            }
        }
        for (JobStatus leased : new JobStatus[] {JobStatus.LEASED, JobStatus.PROCESSING}) {
            assertTrue(leased.next().containsAll(EnumSet.of(JobStatus.SUCCEEDED, JobStatus.PENDING, JobStatus.DEAD)),
                    leased + " can complete, be retried or released, and die");
        }
        // every state is reachable from the states a job starts in (PENDING; WAITING with dependsOn)
        assertEquals(EnumSet.of(JobStatus.PENDING, JobStatus.WAITING), JobStatus.initial());
        assertEquals(EnumSet.of(JobStatus.PENDING, JobStatus.CANCELLED), JobStatus.WAITING.next(),
                "a waiting job is released or cancelled, never leased directly");
        assertFalse(JobStatus.WAITING.terminal());
        Set<JobStatus> seen = EnumSet.copyOf(JobStatus.initial());
        ArrayDeque<JobStatus> todo = new ArrayDeque<>(seen);
        while (!todo.isEmpty()) {
            for (JobStatus n : todo.poll().next()) {
                if (seen.add(n)) {
                    todo.add(n);
                }
            }
        }
        assertEquals(EnumSet.allOf(JobStatus.class), seen);
    }

    /**
     * The status codes of the hot table's CHECK constraint as the latest migration that
     * replaced it states them ({@code ALTER TABLE readpast_job ADD CONSTRAINT ... CHECK (status IN
     * (...))}); null when none did.
     */
    private static Set<Integer> laterCheck(String engine) throws java.io.IOException {
        Set<Integer> found = null;
        int foundVersion = 0;
        Pattern add = Pattern.compile("(?is)ALTER TABLE readpast_job ADD CONSTRAINT \\w+ CHECK \\(\\s*status\\s+IN\\s*\\(([0-9,\\s]+)\\)\\s*\\)");
        try (var files = Files.list(Path.of("src/main/resources/db/migration", engine))) {
            for (Path f : files.toList()) {
                Matcher v = Pattern.compile("V(\\d+)__").matcher(f.getFileName().toString());
                if (!v.find()) {
                    continue;
                }
                Matcher m = add.matcher(Files.readString(f));
                int version = Integer.parseInt(v.group(1));
                if (m.find() && version > foundVersion) {
                    foundVersion = version;
                    found = Arrays.stream(m.group(1).split(",")).map(String::strip).map(Integer::valueOf)
                            .collect(Collectors.toCollection(TreeSet::new));
                }
            }
        }
        return found;
    }

    /** The status codes a table's CHECK constraint allows ({@code status IN (...)}, {@code status = n}); null: none. */
    private static Set<Integer> checked(String schema, String table) {
        Matcher m = Pattern.compile("(?is)CREATE TABLE " + table + "\\s*\\((.*?)\\n\\);").matcher(schema);
        assertTrue(m.find(), "CREATE TABLE " + table);
        Matcher check = Pattern.compile("(?i)CHECK\\s*\\(\\s*status\\s*(?:IN\\s*\\(([0-9,\\s]+)\\)|=\\s*([0-9]+))")
                .matcher(m.group(1));
        if (!check.find()) {
            return null;
        }
        String list = check.group(1) != null ? check.group(1) : check.group(2);
        return Arrays.stream(list.split(",")).map(String::strip).map(Integer::valueOf)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
