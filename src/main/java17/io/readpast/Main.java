package io.readpast;

import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * Entry point, compiled for Java 17 (its own source root; the pom's {@code main-for-old-jvms} execution) so that
 * it still loads on a JVM too old for the rest: there it says so in one line and exits 1,
 * instead of an UnsupportedClassVersionError stack trace. Everything else is {@link Launcher}.
 */
@QuarkusMain
public class Main {

    static final int JAVA_NEEDED = 21;

    public static void main(String... args) {
        int feature = Runtime.version().feature();
        if (feature < JAVA_NEEDED) {
            System.err.println("Readpast cannot start: it needs Java " + JAVA_NEEDED + " or newer, and this is Java "
                    + feature + " (" + System.getProperty("java.home") + "). Run it with a JDK " + JAVA_NEEDED
                    + "+ java, e.g. \"$JAVA_HOME/bin/java\" -jar target/quarkus-app/quarkus-run.jar.");
            System.exit(1);
        }
        Launcher.run(args);
    }
}
