// Readpast benchmark driver: the load generator of bench/run, run as
//
//   java -cp '<quarkus-app>/lib/main/*:<quarkus-app>/app/*' bench/Driver.java <mode> --url http://127.0.0.1:PORT [options]
//
// (the source launcher compiles this file and, on demand, the classes it uses under bench/driver/;
// bench/run compiles them once with javac instead and runs the class "Driver") so that it can use
// the Jackson and pgjdbc jars the broker ships. One file per measurement, sharing a small toolkit:
//
//   driver/Drain.java       throughput  N jobs enqueued, then drained by W workers (claim B + ack)
//   driver/Fairness.java    throughput --fair-keys: the same drain on fair queues against a plain one
//   driver/Sustained.java   sustained   producers and workers at once: the maximum, or a fixed rate
//                                       with enqueue-to-claim latency
//   driver/Latency.java     latency     long-polling workers, one producer at a light fixed rate
//   driver/Ceiling.java     ceiling     no broker: the broker's statements through JDBC
//   driver/Backlog.java     backlog     single claims against a large table
//   driver/Idle.java        idle        long-polls on an empty queue (bench/run counts transactions)
//   (this file)             sql         one statement through JDBC (--jdbc URL --query Q): the
//                                       counts and upkeep bench/run needs where psql cannot reach
//   driver/kit/             the toolkit: Opts (the command line), Http (the lean keep-alive client),
//                           Claims (reads a claim answer), Jdbc (connections, pg_stat_statements),
//                           Cpu (CPU ticks from /proc), Stats (percentiles), Threads
//
// Results go to stdout as single lines "RESULT <what> key=value ..." for bench/run to parse;
// progress goes to stderr. Exit status non-zero on any failure.

import driver.Measurements;
import driver.kit.Http;
import driver.kit.Opts;

public class Driver {
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            Opts.die("usage: Driver <throughput|latency|backlog|idle|sustained|ceiling|statement|sql> --url URL [--key value ...]");
        }
        String mode = args[0];
        Opts.parse(args);
        if (mode.equals("statement")) {
            // a PostgreSQL statement file as the broker runs it (includes expanded, templates
            // filled), without the due-job promotion, which the broker sends as a statement of its
            // own: bench/lib/ceiling.sh makes its pgbench functions from it
            System.out.print(io.readpast.store.StatementCatalog.expandedText(io.readpast.config.Engine.POSTGRESQL,
                    Opts.req("file"), java.util.Set.of("promote_due.sql")));
            System.exit(0);
        }
        if (mode.equals("sql")) {
            // one statement on a database given by JDBC URL (bench/run with BENCH_DB_URL, where
            // no psql reaches the database): autocommit, so that VACUUM runs; prints the first
            // column of the first row, if the statement returns rows
            try (java.sql.Connection c = driver.kit.Jdbc.connect(Opts.req("jdbc"), Opts.get("db-user", ""),
                    Opts.get("db-password", "")); java.sql.Statement st = c.createStatement()) {
                c.setAutoCommit(true);
                boolean rows = st.execute(Opts.req("query"));
                while (true) {
                    if (rows) {
                        try (java.sql.ResultSet rs = st.getResultSet()) {
                            if (rs.next()) {
                                System.out.println(rs.getString(1));
                                System.exit(0);
                            }
                        }
                    } else if (st.getUpdateCount() == -1) {
                        break;
                    }
                    rows = st.getMoreResults();
                }
            }
            System.exit(0);
        }
        if (!mode.equals("ceiling")) {
            Http.init(Opts.req("url"));
        }
        Measurements.run(mode);
        System.exit(0);
    }
}
