package dev.readpast.bench.peers;

import java.util.concurrent.atomic.AtomicLong;

/** The JobRunr job: does nothing but count that it ran. */
public final class NoopJob {
  static final AtomicLong EXECUTED = new AtomicLong();

  private NoopJob() {}

  public static void noop(Integer i) {
    EXECUTED.incrementAndGet();
  }
}
