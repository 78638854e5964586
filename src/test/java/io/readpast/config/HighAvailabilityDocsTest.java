package io.readpast.config;

import io.smallrye.config.WithDefault;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/high-availability.md and README say what scripts/ha-postgres.sh sets and what the broker
 * does: every monitor and keeper setting of the rig has its row with the rig's value, the
 * documented JDBC URL asks what the rig's does, and the failover wait's default is the one the
 * docs give.
 */
class HighAvailabilityDocsTest {

    private static final Path ROOT = Path.of(System.getProperty("user.dir"));

    private static String read(String file) throws IOException {
        return Files.readString(ROOT.resolve(file));
    }

    /** The table row of docs/high-availability.md that names {@code setting} in its first cell. */
    private static String row(String docs, String setting) {
        for (String line : docs.split("\n")) {
            if (line.startsWith("| `" + setting + "`")) {
                return line;
            }
        }
        throw new AssertionError("docs/high-availability.md has no row for " + setting);
    }

    @Test
    void everySettingTheRigMakesIsDocumentedWithItsValue() throws IOException {
        String script = read("scripts/ha-postgres.sh");
        String docs = read("docs/high-availability.md");
        List<String> seen = new ArrayList<>();
        Matcher monitor = Pattern.compile("ALTER SYSTEM SET (pgautofailover\\.\\w+) = (\\d+)").matcher(script);
        while (monitor.find()) {
            String r = row(docs, monitor.group(1));
            // milliseconds, or a count (health_check_max_retries)
            assertTrue(r.contains("| " + monitor.group(2) + " ms |") || r.contains("| " + monitor.group(2) + " |"),
                    monitor.group(1) + " is " + monitor.group(2) + " in the rig: " + r);
            seen.add(monitor.group(1));
        }
        Matcher keeper = Pattern.compile("config set --pgdata \\S+ (timeout\\.\\w+) (\\d+)").matcher(script);
        while (keeper.find()) {
            String r = row(docs, keeper.group(1));
            assertTrue(r.contains("| " + keeper.group(2) + " s |"), keeper.group(1) + " is " + keeper.group(2)
                    + " s in the rig: " + r);
            seen.add(keeper.group(1));
        }
        assertTrue(seen.size() >= 8, "the rig's settings were found in scripts/ha-postgres.sh: " + seen);
    }

    @Test
    void theDocumentedUrlAsksWhatTheRigsDoes() throws IOException {
        Matcher url = Pattern.compile("/\\$DB(\\?targetServerType=[^\"]+)\"").matcher(read("scripts/ha-postgres.sh"));
        assertTrue(url.find(), "scripts/ha-postgres.sh prints a JDBC URL");
        String query = url.group(1).replace("\\&", "&");
        assertTrue(read("docs/high-availability.md").contains("/readpast" + query + "\n"),
                "docs/high-availability.md gives the rig's URL parameters " + query);
        assertTrue(read("README.md").contains("/readpast" + query.substring(0, query.indexOf("&tcpKeepAlive"))),
                "README gives the rig's URL parameters " + query);
    }

    @Test
    void theFailoverWaitsDefaultIsTheDocumentedOne() throws Exception {
        String def = ReadpastConfig.Db.class.getMethod("failoverWait").getAnnotation(WithDefault.class).value();
        assertEquals("PT12S", def, "docs/high-availability.md and README say 12 s");
        String row = null;
        for (String line : read("docs/configuration.md").split("\n")) {
            if (line.startsWith("| `READPAST_DB_FAILOVER_WAIT`")) {
                row = line;
            }
        }
        assertTrue(row != null && row.contains("| `" + def + "` |"), "docs/configuration.md gives the default: " + row);
        assertTrue(read("docs/high-availability.md").contains("default `" + def + "`"), "docs/high-availability.md");
        assertTrue(read("README.md").contains("`READPAST_DB_FAILOVER_WAIT` (12 s)"), "README");
    }
}
