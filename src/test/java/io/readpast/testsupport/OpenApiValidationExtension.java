package io.readpast.testsupport;

import io.restassured.RestAssured;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Registered for every test class (META-INF/services and junit-platform.properties): installs
 * {@link OpenApiValidationFilter} as a global REST Assured filter, and after each class fails it
 * when an exchange made during the class broke the spec (also one on a thread whose failure the
 * test did not see). Each class's count goes to target/openapi-validation.txt. A {@code @QuarkusTest}
 * class runs in Quarkus' own class loader, with a REST Assured of its own: there the same is done
 * by the Quarkus test callbacks (also registered in META-INF/services), in that class loader.
 */
public final class OpenApiValidationExtension implements BeforeAllCallback, AfterAllCallback,
        io.quarkus.test.junit.callback.QuarkusTestBeforeClassCallback,
        io.quarkus.test.junit.callback.QuarkusTestAfterAllCallback {

    /** Where the class the Quarkus callbacks run for began: findings and exchanges so far. */
    private static int quarkusFindings;
    private static long quarkusChecked;
    private static Class<?> quarkusClass;

    @Override
    public void beforeClass(Class<?> testClass) {
        install();
        quarkusClass = testClass;
        quarkusFindings = OpenApiValidation.findings().size();
        quarkusChecked = OpenApiValidation.checked();
    }

    @Override
    public void afterAll(io.quarkus.test.junit.callback.QuarkusTestContext context) {
        Class<?> c = quarkusClass != null ? quarkusClass : context.getTestInstance().getClass();
        verify(c, quarkusFindings, quarkusChecked);
    }

    private static void install() {
        synchronized (OpenApiValidationExtension.class) {
            if (RestAssured.filters().stream().noneMatch(f -> f instanceof OpenApiValidationFilter)) {
                RestAssured.filters(new OpenApiValidationFilter());
            }
        }
    }

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(OpenApiValidationExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        install();
        context.getStore(NS).put("findings", OpenApiValidation.findings().size());
        context.getStore(NS).put("checked", OpenApiValidation.checked());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Integer before = context.getStore(NS).get("findings", Integer.class);
        Long checkedBefore = context.getStore(NS).get("checked", Long.class);
        verify(context.getRequiredTestClass(), before == null ? 0 : before, checkedBefore == null ? 0 : checkedBefore);
    }

    /** Records the class's count and fails it on a finding made since {@code before}. */
    private static void verify(Class<?> testClass, int before, long checkedBefore) {
        List<String> all = OpenApiValidation.findings();
        List<String> mine = all.subList(Math.min(before, all.size()), all.size());
        long checked = OpenApiValidation.checked() - checkedBefore;
        if (checked == 0 && mine.isEmpty()) {
            return; // this class loader made no API calls (the class runs in another)
        }
        record(testClass.getName() + ": " + checked + " exchanges checked, " + mine.size()
                + " findings" + (mine.isEmpty() ? "" : "\n  " + String.join("\n  ", mine)));
        if (!mine.isEmpty()) {
            throw new AssertionError(mine.size() + " exchanges of " + testClass.getSimpleName()
                    + " do not keep to openapi/openapi.json:\n  " + String.join("\n  ", mine.subList(0, Math.min(20, mine.size()))));
        }
    }

    private static void record(String line) {
        Path file = Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "target", "openapi-validation.txt");
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
