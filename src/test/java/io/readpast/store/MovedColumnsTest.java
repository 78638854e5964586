package io.readpast.store;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;
import io.readpast.testsupport.TestDb;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The move of a finished job into the archive or the dead letters is written once per engine
 * (issue 41 part 3): {@code include/finished_columns.sql} is the column list and
 * {@code include/finished_row.sql} the row in that order, and every statement that inserts into
 * either table goes through them. Held here: the list is the columns of both tables (read from
 * the database the suite runs on), the row template gives exactly those columns in that order
 * (run on that database), the two engines' lists are the same, and no statement file writes its
 * own list.
 */
@QuarkusTest
class MovedColumnsTest {

    private static final Path SQL = Path.of("src/main/resources/sql");
    private static final Pattern INSERT = Pattern.compile("INSERT INTO (readpast_job_archive|readpast_job_dead)\\b");

    private static List<String> columnList(Engine engine) throws IOException {
        String text = Files.readString(SQL.resolve(engine.datasourceName()).resolve("include/finished_columns.sql"));
        StringBuilder list = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.startsWith("--")) {
                list.append(line).append(' ');
            }
        }
        return Arrays.stream(list.toString().split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    private static List<String> labels(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData md = rs.getMetaData();
            List<String> out = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                out.add(md.getColumnLabel(i).toLowerCase(Locale.ROOT));
            }
            return out;
        }
    }

    @Test
    void theColumnListIsTheArchiveAndDeadLetterTablesColumnsAndTheRowGivesThemInOrder() throws Exception {
        Engine engine = TestDb.engine();
        List<String> columns = columnList(engine);
        String row = StatementCatalog.expand(engine, null, "test",
                "-- include: finished_row.sql\n-- with from: " + (engine == Engine.SQLSERVER ? "readpast_job AS m" : "readpast_job")
                        + "\n-- with status: 3\n", 0, new ArrayList<>());
        try (Connection c = TestDb.dataSource().getConnection(); Statement s = c.createStatement()) {
            for (String table : List.of("readpast_job_archive", "readpast_job_dead")) {
                List<String> actual = labels(s, "SELECT * FROM " + table + " WHERE 1 = 0");
                assertEquals(new TreeSet<>(actual), new TreeSet<>(columns),
                        table + "'s columns and include/finished_columns.sql");
                assertEquals(actual.size(), columns.size(), "no column named twice in the list");
            }
            assertEquals(columns, labels(s, "SELECT * FROM (" + row + " WHERE 1 = 0) AS r"),
                    "finished_row.sql gives the list's columns in its order");
        }
    }

    @Test
    void bothEnginesMoveTheSameColumns() throws IOException {
        assertEquals(columnList(Engine.POSTGRESQL), columnList(Engine.SQLSERVER));
    }

    /** A slot the template does not have, or one left without a value, fails the load. */
    @Test
    void aTemplateRefusesAnUnknownSlotAndAMissingValue() {
        for (Engine engine : Engine.values()) {
            List<String> missing = new ArrayList<>();
            StatementCatalog.expand(engine, null, "test", "-- include: moved_into.sql\n-- with into: readpast_job_dead\n"
                    + "-- with from: moved AS m\n-- with status: 4\n-- with last_eror: 'x'\n", 0, missing);
            assertEquals(1, missing.size(), missing::toString);
            assertTrue(missing.get(0).startsWith("no slot {{last_eror}}"), missing::toString);
            missing.clear();
            StatementCatalog.expand(engine, null, "test", "-- include: moved_into.sql\n-- with into: readpast_job_dead\n",
                    0, missing);
            assertTrue(missing.stream().anyMatch(m -> m.startsWith("a value for {{status}}")), missing::toString);
        }
    }

    /** Every INSERT into the archive or the dead letters is the template's, or takes its list. */
    @Test
    void noStatementWritesItsOwnColumnList() throws IOException {
        List<String> own = new ArrayList<>();
        int through = 0;
        for (Engine engine : Engine.values()) {
            try (Stream<Path> files = Files.walk(SQL.resolve(engine.datasourceName()))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".sql")).toList()) {
                    String text = Files.readString(f);
                    if (f.getFileName().toString().equals("moved_into.sql")) {
                        continue;
                    }
                    through += text.split("-- include: moved_into.sql", -1).length - 1;
                    Matcher m = INSERT.matcher(text);
                    while (m.find()) {
                        String after = text.substring(m.end()).stripLeading();
                        if (!after.startsWith("(") || !after.substring(1).stripLeading().startsWith("-- include: finished_columns.sql")) {
                            own.add(SQL.relativize(f) + ": " + m.group());
                        }
                    }
                }
            }
        }
        assertTrue(own.isEmpty(), "statements writing their own column list: " + own);
        assertTrue(through >= 13, "the movers of both engines go through moved_into.sql: " + through);
    }
}
