package io.readpast.faults;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The set-up the multi-broker fault tests share: on PostgreSQL only (skipped elsewhere, saying
 * why), {@code n} packaged brokers started before the class and stopped after it, and the
 * tables emptied before each test. Register it as {@code @RegisterExtension static final}.
 */
final class FaultSuite implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

    private final String prefix;
    private final int n;
    private Brokers brokers;

    private FaultSuite(String prefix, int n) {
        this.prefix = prefix;
        this.n = n;
    }

    static FaultSuite brokers(String prefix, int n) {
        return new FaultSuite(prefix, n);
    }

    /** The running brokers (after the class started). */
    Brokers brokers() {
        return brokers;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        assumeTrue(FaultDb.isPostgres(), "the fault tests run on PostgreSQL");
        brokers = Brokers.start(prefix, n);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (brokers != null) {
            brokers.close();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        FaultDb.clean();
    }
}
