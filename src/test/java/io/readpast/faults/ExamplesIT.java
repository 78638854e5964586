package io.readpast.faults;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The example workers (Python, Node.js, bash, Java) against a real broker process that requires
 * API keys: examples/run-e2e.sh enqueues jobs for each, runs it with a key, and checks every job
 * SUCCEEDED, that Ctrl-C releases held jobs, that a worker reports a queue that does not exist,
 * and that a worker with a wrong key exits with status 1.
 */
class ExamplesIT {

    @Test
    void everyExampleWorkerCompletesItsJobs() throws Exception {
        String key = io.readpast.security.ApiKeys.mint();
        var env = java.util.Map.of("READPAST_AUTH_ENABLED", "true",
                "READPAST_API_KEYS", "examples:producer+worker:" + io.readpast.security.ApiKeys.digestHex(key));
        try (Brokers brokers = Brokers.start("examples", 1, env)) {
            Path log = BrokerProcess.LOGS.resolve("examples-e2e.log");
            ProcessBuilder pb = new ProcessBuilder("bash", "examples/run-e2e.sh")
                    .directory(BrokerProcess.BASEDIR.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put("READPAST_URL", brokers.uri(0).toString().replaceAll("/$", ""));
            pb.environment().put("READPAST_API_KEY", key);
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
                assertTrue(out.lines().anyMatch(l -> l.equals("PASS " + lang)), lang + " worker passed:\n" + out);
            }
            assertTrue(out.contains("PASS python-sigint-release"), "Ctrl-C releases held jobs:\n" + out);
            for (String lang : new String[] {"python", "node", "bash", "java"}) {
                assertTrue(out.lines().anyMatch(l -> l.equals("PASS " + lang + "-told")),
                        lang + " worker reports what the broker says:\n" + out);
            }
            assertTrue(!out.contains("wrong-key checks are skipped"), "the broker required keys:\n" + out);
        }
    }
}
