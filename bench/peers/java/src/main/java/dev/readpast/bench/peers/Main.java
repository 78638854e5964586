package dev.readpast.bench.peers;

/**
 * java -jar peers.jar &lt;dbscheduler|jobrunr&gt; [N] [W] [jdbc-url]. Prints one RESULT line on
 * stdout and exits 0; on failure or timeout prints the reason on stderr and exits non-zero.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    if (args.length < 1) {
      System.err.println("usage: java -jar peers.jar <dbscheduler|jobrunr> [N] [W] [jdbc-url]");
      System.exit(64);
    }
    int status = 0;
    try {
      switch (args[0]) {
        case "dbscheduler", "db-scheduler" -> DbSchedulerPeer.run(args);
        case "jobrunr" -> JobRunrPeer.run(args);
        default -> {
          System.err.println("unknown peer: " + args[0] + " (known: dbscheduler, jobrunr)");
          status = 64;
        }
      }
    } catch (Throwable t) {
      System.err.println("FAILED peer=" + args[0] + ": " + t);
      t.printStackTrace();
      status = 1;
    }
    System.out.flush();
    // the libraries leave non-daemon threads behind; the run is over either way
    Runtime.getRuntime().halt(status);
  }
}
