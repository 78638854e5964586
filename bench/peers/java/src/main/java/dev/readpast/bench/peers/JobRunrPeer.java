package dev.readpast.bench.peers;

import static org.jobrunr.server.BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.IntStream;
import org.jobrunr.configuration.JobRunr;
import org.jobrunr.configuration.JobRunrConfiguration.JobRunrConfigurationResult;
import org.jobrunr.jobs.states.StateName;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.storage.StorageProvider;
import org.jobrunr.storage.sql.common.SqlStorageProviderFactory;

/**
 * JobRunr: N fire-and-forget jobs calling a static no-op method, enqueued with the Stream-based
 * bulk enqueue (JobScheduler.enqueue(Stream, JobLambdaFromStream)), drained by a
 * BackgroundJobServer with W workers and the shortest poll interval JobRunr allows on a SQL
 * StorageProvider (5 s; JobRunr also fetches more work each time a worker goes idle, so the
 * interval only bounds how soon the first batch is picked up). Jobs stay in jobrunr_jobs as
 * SUCCEEDED, so the drain is over when JobRunr's own count of SUCCEEDED jobs reaches N.
 *
 * <p>Tuning (environment): JOBRUNR_POLL_S (5, the minimum JobRunr accepts on SQL).
 */
final class JobRunrPeer {

  static void run(String[] args) throws Exception {
    Bench b = new Bench("jobrunr", "bench_jobrunr", args);
    int pollSeconds = Integer.parseInt(envOr("JOBRUNR_POLL_S", "5"));
    int poolSize = b.workers + 4;
    String version = Bench.mavenVersion("org.jobrunr", "jobrunr");

    b.resetDatabase();
    // Not closed on failure: Main halts the JVM at once, so a failed run reports its reason
    // instead of JobRunr's complaints about a closed pool.
    HikariDataSource ds = b.pool(poolSize);
    // JobRunr creates its tables (jobrunr_*) here, before anything is timed.
    StorageProvider storage = SqlStorageProviderFactory.using(ds);
    JobRunrConfigurationResult jobrunr = JobRunr.configure()
        .useStorageProvider(storage)
        .useBackgroundJobServer(usingStandardBackgroundJobServerConfiguration()
            .andWorkerCount(b.workers)
            .andPollInterval(Duration.ofSeconds(pollSeconds)), false)
        .initialize();

    long e0 = System.nanoTime();
    jobrunr.getJobScheduler().enqueue(IntStream.range(0, b.jobs).boxed(), i -> NoopJob.noop(i));
    long e1 = System.nanoTime();
    long queued = storage.countJobs(StateName.ENQUEUED);
    if (queued != b.jobs) {
      throw new IllegalStateException("expected " + b.jobs + " ENQUEUED jobs, found " + queued);
    }

    BackgroundJobServer server = jobrunr.getBackgroundJobServer();
    long d0 = System.nanoTime();
    server.start();
    long d1 = b.awaitFinished(d0, () -> storage.countJobs(StateName.SUCCEEDED));
    server.stop();
    ds.close();
    System.err.printf(Locale.ROOT, "[jobrunr] handler ran %d times for %d jobs%n", NoopJob.EXECUTED.get(), b.jobs);
    String settings = String.format(Locale.ROOT,
        "workerCount=%d pollInterval=%ds pool=%d enqueue=Stream", b.workers, pollSeconds, poolSize);
    b.printResult(version, Bench.seconds(e0, e1), Bench.seconds(d0, d1), settings);
  }

  private static String envOr(String name, String dflt) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? dflt : v.trim();
  }
}
