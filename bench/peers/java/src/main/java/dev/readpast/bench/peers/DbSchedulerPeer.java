package dev.readpast.bench.peers;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * db-scheduler: N one-time executions of a no-op task, scheduled in bulk with
 * SchedulerClient.scheduleBatch, drained by a Scheduler with W threads and the lock-and-fetch
 * polling strategy (select ... for update skip locked), as its README advises above ~1000
 * executions/s. A one-time execution's row is deleted when it completes, so the drain is over
 * when scheduled_tasks is empty.
 *
 * <p>Tuning (environment): DBSCHEDULER_POLL_MS (100), DBSCHEDULER_LOWER (1.0),
 * DBSCHEDULER_UPPER (4.0), DBSCHEDULER_BATCH (1000 executions per scheduleBatch call).
 */
final class DbSchedulerPeer {

  /**
   * The scheduled_tasks table for PostgreSQL as documented for db-scheduler 16.x (README,
   * "Getting started", step 2: table definition for postgresql).
   */
  private static final String[] DDL = {
    """
    create table scheduled_tasks (
      task_name            text                     not null,
      task_instance        text                     not null,
      task_data            bytea,
      execution_time       timestamp with time zone not null,
      picked               boolean                  not null,
      picked_by            text,
      last_success         timestamp with time zone,
      last_failure         timestamp with time zone,
      consecutive_failures int,
      last_heartbeat       timestamp with time zone,
      version              bigint                   not null,
      priority             smallint,
      primary key (task_name, task_instance)
    )""",
    "create index execution_time_idx on scheduled_tasks (execution_time)",
    "create index last_heartbeat_idx on scheduled_tasks (last_heartbeat)",
    "create index priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc)"
  };

  static void run(String[] args) throws Exception {
    Bench b = new Bench("db-scheduler", "bench_dbscheduler", args);
    long pollMs = Long.parseLong(env("DBSCHEDULER_POLL_MS", "100"));
    double lower = Double.parseDouble(env("DBSCHEDULER_LOWER", "1.0"));
    double upper = Double.parseDouble(env("DBSCHEDULER_UPPER", "4.0"));
    int batch = Integer.parseInt(env("DBSCHEDULER_BATCH", "1000"));
    int poolSize = b.workers + 4;
    String version = Bench.mavenVersion("com.github.kagkarlsson", "db-scheduler");

    b.resetDatabase();
    try (Connection c = b.connection(); Statement s = c.createStatement()) {
      for (String ddl : DDL) {
        s.execute(ddl);
      }
    }

    AtomicLong executed = new AtomicLong();
    OneTimeTask<Void> noop = Tasks.oneTime("noop").execute((inst, ctx) -> executed.incrementAndGet());

    // Not closed on failure: Main halts the JVM at once, so a failed run reports its reason
    // instead of the scheduler's complaints about a closed pool.
    HikariDataSource ds = b.pool(poolSize);

    // enqueue: bulk, through the SchedulerClient, all due now
    SchedulerClient client = SchedulerClient.Builder.create(ds, noop).build();
    Instant due = Instant.now().minusSeconds(1);
    long e0 = System.nanoTime();
    List<TaskInstance<?>> chunk = new ArrayList<>(batch);
    for (int i = 0; i < b.jobs; i++) {
      chunk.add(noop.instance(Integer.toString(i)));
      if (chunk.size() == batch || i == b.jobs - 1) {
        client.scheduleBatch(chunk, due);
        chunk = new ArrayList<>(batch);
      }
    }
    long e1 = System.nanoTime();
    long queued = count(b);
    if (queued != b.jobs) {
      throw new IllegalStateException("expected " + b.jobs + " scheduled executions, found " + queued);
    }

    // drain
    Scheduler scheduler = Scheduler.create(ds, noop)
        .threads(b.workers)
        .pollingInterval(Duration.ofMillis(pollMs))
        .pollUsingLockAndFetch(lower, upper)
        .build();
    Connection probe = b.connection();
    long d0 = System.nanoTime();
    scheduler.start();
    long d1 = b.awaitFinished(d0, () -> b.jobs - count(probe));
    scheduler.stop();
    probe.close();
    ds.close();

    System.err.printf(Locale.ROOT, "[db-scheduler] handler ran %d times for %d jobs%n", executed.get(), b.jobs);
    String settings = String.format(Locale.ROOT,
        "threads=%d pollUsingLockAndFetch(%s,%s) pollingInterval=%dms pool=%d scheduleBatch=%d",
        b.workers, lower, upper, pollMs, poolSize, batch);
    b.printResult(version, Bench.seconds(e0, e1), Bench.seconds(d0, d1), settings);
  }

  private static long count(Bench b) throws SQLException {
    try (Connection c = b.connection()) {
      return count(c);
    }
  }

  private static long count(Connection c) {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select count(*) from scheduled_tasks")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("counting scheduled_tasks failed", e);
    }
  }

  private static String env(String name, String dflt) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? dflt : v.trim();
  }
}
