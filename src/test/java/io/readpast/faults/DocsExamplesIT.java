package io.readpast.faults;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every documented curl runs, as pasted, against a broker started the way README says: the
 * packaged jar with no settings at all (an embedded PostgreSQL in its own directory, no keys: it
 * prints a generated admin key, which stands in for the examples' {@code READPAST_API_KEY}).
 * Each {@code ```bash} block of README.md and docs/*.md that calls curl is run, the blocks of a
 * page in order in one bash (so a block can use what an earlier one set), with only the base URL
 * and the key filled in; every curl must get a 2xx. A block whose first line reads
 * {@code # needs NAME=...} (a setting it needs, e.g. READPAST_WEBHOOK_SECRET for webhooks) runs
 * on a second broker started the same way plus that setting, as the block tells the reader.
 */
class DocsExamplesIT {

    private static final Pattern BLOCK = Pattern.compile("(?s)```bash\n(.*?)```");
    private static final Pattern NEEDS = Pattern.compile("^# needs ([A-Z_]+)=(\\S+)");
    private static final String BASE_LINE = "B=http://localhost:8080\n";
    private static final String KEY_LINE = "READPAST_API_KEY=rp_...";

    /** The blocks to run: per needed setting (none: ""), per page, in order. */
    private static Map<String, Map<String, List<String>>> blocks() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(BrokerProcess.BASEDIR.resolve("README.md"));
        try (Stream<Path> docs = Files.list(BrokerProcess.BASEDIR.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        Map<String, Map<String, List<String>>> out = new LinkedHashMap<>();
        for (Path page : pages) {
            Matcher m = BLOCK.matcher(Files.readString(page, StandardCharsets.UTF_8));
            while (m.find()) {
                String block = m.group(1);
                if (!block.contains("curl ")) {
                    continue;
                }
                Matcher needs = NEEDS.matcher(block);
                String setting = needs.find() ? needs.group(1) + "=" + needs.group(2) : "";
                out.computeIfAbsent(setting, k -> new LinkedHashMap<>())
                        .computeIfAbsent(BrokerProcess.BASEDIR.relativize(page).toString(), k -> new ArrayList<>())
                        .add(block);
            }
        }
        return out;
    }

    @Test
    void everyDocumentedCurlRunsAgainstABrokerStartedAsReadmeSays() throws Exception {
        assumeTrue(new ProcessBuilder("bash", "-c", "command -v jq && command -v curl").start().waitFor() == 0,
                "the examples need curl and jq");
        Map<String, Map<String, List<String>>> all = blocks();
        assertTrue(all.containsKey("") && all.get("").containsKey("docs/api.md") && all.get("").containsKey("README.md"),
                "README.md and docs/api.md have curl examples: " + all.keySet());
        long calls = 0;
        for (Map.Entry<String, Map<String, List<String>>> group : all.entrySet()) {
            calls += run(group.getKey(), group.getValue());
        }
        assertTrue(calls >= 60, "the examples ran (" + calls + " curl calls)");
    }

    /** Starts a broker as README says (plus {@code setting}), runs the pages' blocks; returns the curl count. */
    private static long run(String setting, Map<String, List<String>> pages) throws Exception {
        Path dir = Files.createTempDirectory(BrokerProcess.LOGS.getParent(), "docs-examples-");
        Map<String, String> env = new LinkedHashMap<>(Map.of("READPAST_DB_URL", "", "READPAST_DB_USERNAME", "",
                "READPAST_AUTH_ENABLED", ""));
        if (!setting.isEmpty()) {
            env.put(setting.substring(0, setting.indexOf('=')), setting.substring(setting.indexOf('=') + 1));
        }
        String name = setting.isEmpty() ? "docs" : "docs-" + setting.substring(0, setting.indexOf('=')).toLowerCase();
        BrokerProcess broker = BrokerProcess.start(name, env, dir);
        long calls = 0;
        try {
            await(name + " ready").atMost(Duration.ofSeconds(120)).until(() -> broker.ready(new Api()));
            Matcher m = Pattern.compile("(rp_[A-Za-z0-9_-]{40,})").matcher(String.join("\n", broker.logLines("rp_")));
            assertTrue(m.find(), "the broker printed its generated admin key, as README says:\n" + broker.logTail(40));
            String key = m.group(1);
            for (Map.Entry<String, List<String>> page : pages.entrySet()) {
                calls += runPage(name, page.getKey(), page.getValue(), broker, key);
            }
        } finally {
            broker.stop();
        }
        return calls;
    }

    private static long runPage(String name, String page, List<String> blocks, BrokerProcess broker, String key)
            throws Exception {
        String base = broker.base.toString().replaceAll("/$", "");
        String preamble = """
                set -u
                # what the pages set up before these blocks (docs/api.md's first block, README's environment)
                B=%s
                READPAST_API_KEY=%s
                export READPAST_API_KEY
                H="Authorization: Bearer $READPAST_API_KEY"
                J='Content-Type: application/json'
                # every curl of the examples: its answer on stdout as usual, a non-2xx recorded
                curl() {
                  local out code args="$*"
                  args=${args//${READPAST_API_KEY}/rp_***}
                  if ! out=$(command curl -sS --max-time 40 -w '\\n%%{http_code}' "$@"); then
                    echo "no answer: curl $args" >> "$DOCS_FAILS"; return 0
                  fi
                  code=${out##*$'\\n'}
                  printf '%%s\\n' "${out%%$'\\n'*}"
                  echo "DOCS HTTP $code: curl $args" >&2
                  if [ "$code" -lt 200 ] || [ "$code" -ge 300 ]; then
                    echo "HTTP $code: curl $args -> ${out%%$'\\n'*}" >> "$DOCS_FAILS"
                  fi
                }
                """.formatted(base, key);
        StringBuilder script = new StringBuilder(preamble);
        for (String block : blocks) {
            String b = block.replace(BASE_LINE, "B=" + base + "\n").replace(KEY_LINE, "READPAST_API_KEY=" + key);
            script.append("\n# ---- a block of ").append(page).append("\n").append(b);
        }
        Path fails = Files.createTempFile("docs-fails", ".txt");
        Path file = Files.createTempFile("docs-examples", ".sh");
        Files.writeString(file, script.toString(), StandardCharsets.UTF_8);
        Path log = BrokerProcess.LOGS.resolve(name + "-" + page.replace('/', '_') + ".log");
        ProcessBuilder pb = new ProcessBuilder("bash", file.toString()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put("DOCS_FAILS", fails.toString());
        Process p = pb.start();
        boolean done = p.waitFor(4, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly();
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(done, page + ": the examples finished:\n" + out);
        assertEquals(0, p.exitValue(), page + ":\n" + out);
        long calls = out.lines().filter(l -> l.startsWith("DOCS HTTP ")).count();
        assertTrue(calls >= blocks.size(), page + ": every block ran a curl (" + calls + " calls):\n" + out);
        assertEquals("", Files.readString(fails).strip(), page + ": every curl got a 2xx; log " + log);
        assertFalse(out.contains(key), page + ": the key is not echoed by the harness");
        return calls;
    }
}
