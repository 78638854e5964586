package io.readpast.faults;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The API examples of docs/api.md (moved there from the README), pasted in order into bash
 * against a fresh broker (the packaged jar, keys required, webhooks on): every {@code ```bash}
 * block from the line "## API" to the line "## End of API examples", with only the base URL and
 * the key filled in. Every curl must get a 2xx, so the documentation cannot drift from what the
 * broker does.
 */
class ReadmeExamplesIT {

    private static final String DB = "readpast_readme";

    @Test
    void theReadmeCurlExamplesRunInOrder() throws Exception {
        assumeTrue(FaultDb.isPostgres(), "needs PostgreSQL at 127.0.0.1:5432");
        assumeTrue(new ProcessBuilder("bash", "-c", "command -v jq && command -v curl").start().waitFor() == 0,
                "README's examples need curl and jq");
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + DB);
        }
        String doc = "\n" + Files.readString(BrokerProcess.BASEDIR.resolve("docs/api.md"), StandardCharsets.UTF_8);
        int from = doc.indexOf("\n## API\n");
        int to = doc.indexOf("\n## End of API examples\n");
        assertTrue(from >= 0 && to > from, "docs/api.md has a line \"## API\" and, after it, a line \"## End of API examples\"");
        String api = doc.substring(from, to);
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("(?s)```bash\n(.*?)```").matcher(api);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        String script = String.join("\n", blocks);
        String baseLine = "B=http://localhost:8080\n";
        String keyLine = "READPAST_API_KEY=rp_...";
        assertTrue(script.contains(baseLine) && script.contains(keyLine), "docs/api.md sets B and the key as expected");

        String key = io.readpast.security.ApiKeys.mint();
        BrokerProcess broker = BrokerProcess.start("readme", Map.of(
                "READPAST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/" + DB,
                "READPAST_AUTH_ENABLED", "true",
                "READPAST_API_KEYS", "ops:admin:" + io.readpast.security.ApiKeys.digestHex(key),
                "READPAST_WEBHOOK_SECRET", "readme-example-secret-0123456789"), BrokerProcess.BASEDIR);
        try {
            await("broker ready").atMost(Duration.ofSeconds(90)).until(() -> broker.ready(new Api()));
            Path fails = Files.createTempFile("readme-fails", ".txt");
            String harness = """
                    set -u
                    # every curl of the examples: its answer on stdout as usual, a non-2xx recorded
                    curl() {
                      local out code args="$*"
                      args=${args//${READPAST_API_KEY:-no-key-yet}/rp_***}
                      if ! out=$(command curl -sS --max-time 40 -w '\\n%{http_code}' "$@"); then
                        echo "no answer: curl $args" >> "$README_FAILS"; return 0
                      fi
                      code=${out##*$'\\n'}
                      printf '%s\\n' "${out%$'\\n'*}"
                      echo "README HTTP $code: curl $args" >&2
                      if [ "$code" -lt 200 ] || [ "$code" -ge 300 ]; then
                        echo "HTTP $code: curl $args -> ${out%$'\\n'*}" >> "$README_FAILS"
                      fi
                    }
                    """;
            String body = script.replace(baseLine, "B=" + broker.base.toString().replaceAll("/$", "") + "\n")
                    .replace(keyLine, "READPAST_API_KEY=" + key);
            Path file = Files.createTempFile("readme-examples", ".sh");
            Files.writeString(file, harness + body, StandardCharsets.UTF_8);
            Path log = BrokerProcess.LOGS.resolve("readme-examples.log");
            ProcessBuilder pb = new ProcessBuilder("bash", file.toString()).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put("README_FAILS", fails.toString());
            Process p = pb.start();
            boolean done = p.waitFor(4, TimeUnit.MINUTES);
            if (!done) {
                p.destroyForcibly();
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(done, "the examples finished:\n" + out);
            assertEquals(0, p.exitValue(), out);
            long calls = out.lines().filter(l -> l.startsWith("README HTTP ")).count();
            assertTrue(calls >= 40, "the examples ran (" + calls + " curl calls):\n" + out);
            assertEquals("", Files.readString(fails).strip(), "every README curl got a 2xx; log " + log);
            assertTrue(!out.contains(key), "the key is not echoed by the harness");
        } finally {
            broker.stop();
        }
    }
}
