package io.readpast.config;

/**
 * The settings that cannot be checked by their types alone, checked once, at start-up, before
 * the database is touched. Each failure names the property and its environment variable.
 */
public final class StartupChecks {

    private StartupChecks() {
    }

    public static void check(ReadpastConfig config) {
        if (config.db().claimConcurrency() < 1) {
            throw new StartupFailure("readpast.db.claim-concurrency (READPAST_DB_CLAIM_CONCURRENCY) must be at least 1, got "
                    + config.db().claimConcurrency());
        }
        long after = config.upkeep().vacuumAfter();
        if (after < 0) {
            throw new StartupFailure("readpast.upkeep.vacuum-after (READPAST_UPKEEP_VACUUM_AFTER) must be 0 (off) "
                    + "or a positive number of jobs, got " + after);
        }
    }
}
