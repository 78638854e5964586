package dev.readpast.bench.peers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What every Java peer harness shares: its parameters, resetting its own database, a pool,
 * the bounded wait for the drain and the one RESULT line.
 *
 * <p>Parameters, command line first, then environment, then default:
 *
 * <ul>
 *   <li>N: 2nd argument, {@code BENCH_N}, 20000
 *   <li>W: 3rd argument, {@code BENCH_W}, 16
 *   <li>server URL (any existing database; the harness swaps in its own database name): 4th
 *       argument, {@code BENCH_JDBC_URL}, {@code jdbc:postgresql://127.0.0.1:5432/postgres}
 *   <li>{@code BENCH_DB_USER} (postgres), {@code BENCH_DB_PASSWORD} (empty)
 *   <li>{@code BENCH_DB_NAME}: overrides the peer's database name
 *   <li>{@code BENCH_TIMEOUT_S}: bound on the drain, default 600
 *   <li>{@code BENCH_PROBE_MS}: how often the drain's progress is counted, default 50
 * </ul>
 */
final class Bench {
  final String peer;
  final int jobs;
  final int workers;
  final String adminUrl;
  final String user;
  final String password;
  final String dbName;
  final String dbUrl;
  final long timeoutMillis;
  final long probeMillis;

  Bench(String peer, String defaultDbName, String[] args) {
    this.peer = peer;
    this.jobs = intParam(args, 1, "BENCH_N", 20000);
    this.workers = intParam(args, 2, "BENCH_W", 16);
    this.adminUrl = strParam(args, 3, "BENCH_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/postgres");
    this.user = env("BENCH_DB_USER", "postgres");
    this.password = env("BENCH_DB_PASSWORD", "");
    this.dbName = env("BENCH_DB_NAME", defaultDbName);
    this.dbUrl = withDatabase(adminUrl, dbName);
    this.timeoutMillis = (long) (Double.parseDouble(env("BENCH_TIMEOUT_S", "600")) * 1000);
    this.probeMillis = Long.parseLong(env("BENCH_PROBE_MS", "50"));
    if (jobs < 1 || workers < 1) {
      throw new IllegalArgumentException("N and W must be >= 1 (got N=" + jobs + " W=" + workers + ")");
    }
    if (!dbName.matches("[a-z_][a-z0-9_]*")) {
      throw new IllegalArgumentException("database name must be a plain lower-case identifier: " + dbName);
    }
  }

  private static String env(String name, String dflt) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? dflt : v.trim();
  }

  private static String strParam(String[] args, int i, String envName, String dflt) {
    if (args.length > i && !args[i].isBlank()) {
      return args[i].trim();
    }
    return env(envName, dflt);
  }

  private static int intParam(String[] args, int i, String envName, int dflt) {
    return Integer.parseInt(strParam(args, i, envName, Integer.toString(dflt)));
  }

  /** jdbc:postgresql://host:port/anything?params -> jdbc:postgresql://host:port/db?params */
  static String withDatabase(String url, String db) {
    Matcher m = Pattern.compile("^(jdbc:postgresql://[^/?]+)(/[^?]*)?(\\?.*)?$").matcher(url);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a jdbc:postgresql:// URL: " + url);
    }
    return m.group(1) + "/" + db + (m.group(3) == null ? "" : m.group(3));
  }

  Connection adminConnection() throws SQLException {
    return DriverManager.getConnection(adminUrl, user, password);
  }

  Connection connection() throws SQLException {
    return DriverManager.getConnection(dbUrl, user, password);
  }

  /** Drops and creates this peer's database (never the one in the given URL). */
  void resetDatabase() throws SQLException {
    try (Connection c = adminConnection(); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + dbName + " WITH (FORCE)");
      s.execute("CREATE DATABASE " + dbName);
    }
  }

  HikariDataSource pool(int size) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(dbUrl);
    cfg.setUsername(user);
    cfg.setPassword(password);
    cfg.setMaximumPoolSize(size);
    cfg.setMinimumIdle(size);
    cfg.setPoolName(peer);
    return new HikariDataSource(cfg);
  }

  /**
   * Waits until {@code finished} reports at least N, polling every BENCH_PROBE_MS; returns the time at
   * which it first did, in nanoTime. Throws on timeout.
   */
  long awaitFinished(long startNanos, LongSupplier finished) throws InterruptedException {
    long deadline = startNanos + timeoutMillis * 1_000_000L;
    long nextReport = startNanos + 5_000_000_000L;
    while (true) {
      long done = finished.getAsLong();
      long now = System.nanoTime();
      if (done >= jobs) {
        return now;
      }
      if (now > deadline) {
        throw new IllegalStateException(String.format(Locale.ROOT,
            "timeout: %d of %d jobs finished after %.1f s (BENCH_TIMEOUT_S=%.0f)",
            done, jobs, (now - startNanos) / 1e9, timeoutMillis / 1000.0));
      }
      if (now > nextReport) {
        System.err.printf(Locale.ROOT, "[%s] %d/%d finished after %.1f s%n",
            peer, done, jobs, (now - startNanos) / 1e9);
        nextReport += 5_000_000_000L;
      }
      Thread.sleep(probeMillis);
    }
  }

  void printResult(String version, double enqueueSeconds, double drainSeconds, String settings) {
    System.out.printf(Locale.ROOT,
        "RESULT peer=%s version=%s jobs=%d workers=%d enqueue_s=%.3f drain_s=%.3f jobs_per_s=%.1f settings=\"%s\"%n",
        peer, version, jobs, workers, enqueueSeconds, drainSeconds, jobs / drainSeconds,
        settings.replace('"', '\''));
    System.out.flush();
  }

  /**
   * Version of a peer library: its own Maven metadata when the shaded jar carries it, else the
   * version Maven resolved for this build (peer-versions.properties, filtered from pom.xml).
   */
  static String mavenVersion(String groupId, String artifactId) {
    String res = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
    for (String r : new String[] {res, "/peer-versions.properties"}) {
      try (InputStream in = Bench.class.getResourceAsStream(r)) {
        if (in != null) {
          Properties p = new Properties();
          p.load(in);
          String v = p.getProperty(r == res ? "version" : artifactId);
          if (v != null && !v.isBlank() && !v.startsWith("${")) {
            return v;
          }
        }
      } catch (Exception e) {
        // try the next source
      }
    }
    return "unknown";
  }

  static double seconds(long fromNanos, long toNanos) {
    return (toNanos - fromNanos) / 1e9;
  }
}
