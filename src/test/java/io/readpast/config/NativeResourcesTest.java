package io.readpast.config;

import io.readpast.store.StatementCatalog;
import io.readpast.store.Stmt;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A native image holds only the resources it is told to: every resource the broker loads at
 * run time must match {@code quarkus.native.resources.includes}, or the native binary fails
 * where the JVM jar works (it once stopped with "Statements missing"). Checked here: every
 * statement and include fragment of both engines, every migration, the embedded PostgreSQL
 * archive, and every resource name written literally in the sources.
 */
class NativeResourcesTest {

    private static List<Pattern> includes() throws IOException {
        Properties p = new Properties();
        try (InputStream in = NativeResourcesTest.class.getClassLoader().getResourceAsStream("application.properties")) {
            p.load(in);
        }
        String value = p.getProperty("quarkus.native.resources.includes");
        assertNotNull(value, "quarkus.native.resources.includes is set");
        List<Pattern> globs = new ArrayList<>();
        for (String glob : value.split(",")) {
            globs.add(Pattern.compile(globToRegex(glob.strip())));
        }
        return globs;
    }

    /** Quarkus' include globs: ** any path, * any name part, everything else literal. */
    private static String globToRegex(String glob) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                re.append(".*");
                i++;
            } else if (c == '*') {
                re.append("[^/]*");
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return re.toString();
    }

    private static boolean covered(List<Pattern> globs, String resource) {
        return globs.stream().anyMatch(g -> g.matcher(resource).matches());
    }

    @Test
    void everyResourceTheBrokerLoadsIsInTheNativeImage() throws IOException {
        List<Pattern> globs = includes();
        List<String> missing = new ArrayList<>();
        List<String> loaded = new ArrayList<>();
        for (Engine engine : Engine.values()) {
            for (Stmt stmt : Stmt.values()) {
                loaded.add(StatementCatalog.resourcePath(engine, stmt));
            }
        }
        Path resources = Path.of("src/main/resources");
        for (String dir : List.of("sql", "db/migration")) {
            try (Stream<Path> files = Files.walk(resources.resolve(dir))) {
                files.filter(Files::isRegularFile).forEach(f -> loaded.add(resources.relativize(f).toString().replace('\\', '/')));
            }
        }
        // the embedded PostgreSQL archive zonky unpacks at first start
        String archive = "postgres-linux-x86_64.txz";
        assertNotNull(getClass().getClassLoader().getResource(archive), "zonky's archive is on the class path");
        loaded.add(archive);
        // resource names written in the sources (getResource... calls with a literal)
        Pattern literal = Pattern.compile("getResource(?:AsStream|s)?\\(\"([^\"]+)\"");
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            for (Path f : sources.filter(x -> x.toString().endsWith(".java")).toList()) {
                Matcher m = literal.matcher(Files.readString(f));
                while (m.find()) {
                    loaded.add(m.group(1).replaceFirst("^/", ""));
                }
            }
        }
        for (String r : loaded) {
            if (!covered(globs, r) && !r.startsWith("META-INF/resources/")) {
                missing.add(r);
            }
        }
        assertTrue(loaded.size() > 60, "the statements were found: " + loaded.size());
        assertEquals(List.of(), missing, "resources the native image would lack");
    }

    /** The check itself: a resource outside the includes is caught. */
    @Test
    void aResourceOutsideTheIncludesIsCaught() throws IOException {
        List<Pattern> globs = includes();
        assertTrue(covered(globs, "sql/postgresql/job_claim.sql"));
        assertTrue(covered(globs, "sql/mssql/include/babelfish/claim.sql"));
        assertTrue(covered(globs, "db/migration/mssql/V1__init.sql"));
        assertFalse(covered(globs, "templates/mail.txt"));
        assertFalse(covered(globs, "postgres-darwin-x86_64.zip"));
    }
}
