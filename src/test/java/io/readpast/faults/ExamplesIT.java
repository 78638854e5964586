package io.readpast.faults;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The example workers (Python, Node.js, bash, Java) against a real broker process:
 * examples/run-e2e.sh enqueues jobs for each, runs it, and checks every job SUCCEEDED (and that
 * Ctrl-C releases held jobs).
 */
class ExamplesIT {

    @Test
    void everyExampleWorkerCompletesItsJobs() throws Exception {
        try (Brokers brokers = Brokers.start("examples", 1)) {
            Path log = BrokerProcess.LOGS.resolve("examples-e2e.log");
            ProcessBuilder pb = new ProcessBuilder("bash", "examples/run-e2e.sh")
                    .directory(BrokerProcess.BASEDIR.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put("READPAST_URL", brokers.uri(0).toString().replaceAll("/$", ""));
            pb.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
            Process p = pb.start();
            boolean finished = p.waitFor(8, TimeUnit.MINUTES);
            if (!finished) {
                p.destroyForcibly();
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            System.out.println(out);
            assertTrue(finished, "run-e2e.sh finished in time:\n" + out);
            assertEquals(0, p.exitValue(), "run-e2e.sh passed:\n" + out);
            for (String lang : new String[] {"python", "node", "bash", "java"}) {
                assertTrue(out.contains("PASS " + lang), lang + " worker passed:\n" + out);
            }
            assertTrue(out.contains("PASS python-sigint-release"), "Ctrl-C releases held jobs:\n" + out);
        }
    }
}
