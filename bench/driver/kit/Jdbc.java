package driver.kit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The JDBC side of the toolkit: connections (the ceiling's clients) and the statement counts of
 * PostgreSQL's pg_stat_statements around a measured window.
 */
public final class Jdbc {
    private Jdbc() {
    }

    public static Connection connect(String url, String user, String password) throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /**
     * pg_stat_statements of one database, read through a connection of its own to the server's
     * {@code postgres} database (so that reading it is not counted): reset when a window starts,
     * read when it ends. bench/run passes --pgss-url (that connection) and --pgss-db (the
     * database whose statements count) when the extension is loaded in its own cluster.
     */
    public static final class Statements implements AutoCloseable {
        private final Connection c;
        private final String db;

        private Statements(Connection c, String db) {
            this.c = c;
            this.db = db;
        }

        /** The counter of this run's options, or null when none was asked for (--pgss-url). */
        public static Statements open() throws SQLException {
            if (!Opts.has("pgss-url")) {
                return null;
            }
            Connection c = connect(Opts.get("pgss-url"), Opts.get("pgss-user", "postgres"), "");
            c.setAutoCommit(true);
            return new Statements(c, Opts.req("pgss-db"));
        }

        /** Forgets the database's statements so far. */
        public void reset() throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT pg_stat_statements_reset(0, d.oid, 0) FROM pg_database d WHERE d.datname = ?")) {
                ps.setString(1, db);
                ps.execute();
            }
        }

        /** One normalized statement since the reset: its calls, rows and execution time. */
        public record Entry(long calls, long rows, double ms, String query) {
        }

        /** Every statement of the database since the reset, the most called first. */
        public List<Entry> read() throws SQLException {
            List<Entry> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT s.calls, s.rows, s.total_exec_time, s.query FROM pg_stat_statements s"
                            + " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ?"
                            + " AND s.query NOT LIKE '%pg_stat_statements%' ORDER BY s.calls DESC")) {
                ps.setString(1, db);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Entry(rs.getLong(1), rs.getLong(2), rs.getDouble(3), rs.getString(4)));
                    }
                }
            }
            return out;
        }

        /**
         * Reads the statements since the reset and prints them for {@code jobs} jobs: returns the
         * fields for the phase's RESULT line (" statements=N statements_per_1k=X"), and prints a line
         * "STATEMENT label=... calls_per_1k=... mean_ms=... rows_per_call=... query=..." for the ten
         * most called (the query's first 160 characters, white space folded).
         */
        public String report(String label, long jobs) throws SQLException {
            List<Entry> all = read();
            long calls = all.stream().mapToLong(Entry::calls).sum();
            double k = jobs / 1000.0;
            for (Entry e : all.subList(0, Math.min(10, all.size()))) {
                System.out.printf(Locale.ROOT, "STATEMENT label=%s calls_per_1k=%.2f mean_ms=%.3f rows_per_call=%.1f query=%s%n",
                        label, k > 0 ? e.calls() / k : Double.NaN, e.calls() > 0 ? e.ms() / e.calls() : Double.NaN,
                        e.calls() > 0 ? e.rows() / (double) e.calls() : Double.NaN, shortText(e.query()));
            }
            return String.format(Locale.ROOT, " statements=%d statements_per_1k=%.1f", calls, k > 0 ? calls / k : Double.NaN);
        }

        /**
         * A statement in a line: the first line of its leading comment that says what it is (the
         * broker's statement files start with one), in brackets, then its SQL without comments,
         * white space folded, cut at 120 characters.
         */
        static String shortText(String query) {
            String name = "";
            StringBuilder sql = new StringBuilder();
            for (String line : query.split("\n")) {
                String t = line.trim();
                if (t.startsWith("--")) {
                    String c = t.substring(2).trim();
                    if (name.isEmpty() && !c.isEmpty() && !c.startsWith("readpast:")) {
                        name = c.length() > 60 ? c.substring(0, 60) + "..." : c;
                    }
                } else {
                    sql.append(line.replaceAll("--.*$", "")).append(' ');
                }
            }
            String q = sql.toString().replaceAll("\\s+", " ").trim();
            q = q.length() > 120 ? q.substring(0, 120) + "..." : q;
            return name.isEmpty() ? q : "[" + name + "] " + q;
        }

        @Override
        public void close() throws SQLException {
            c.close();
        }
    }
}
