package io.readpast.store;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * How SQL Server and Azure SQL errors are classified: retried (TRANSIENT, answered 503 when
 * they keep coming), unavailable (503 at once), duplicate key, or a real failure. The numbers
 * are what mssql-jdbc reports in SQLException.getErrorCode().
 */
class SqlServerDialectTest {

    private final SqlServerDialect dialect = new SqlServerDialect();

    private StoreException.Kind kindOf(int errorCode, String sqlState) {
        return dialect.classify(new SQLException("error " + errorCode, sqlState, errorCode));
    }

    /** Review 2's L1: STRING_AGG needs 2017; Azure SQL reports major version 12 and is current. */
    @Test
    void sqlServerBefore2017IsRefusedAndAzureSqlIsNot() {
        org.junit.jupiter.api.Assertions.assertNotNull(SqlServerDialect.versionRefusal("13.0.6300.2", 3));
        org.junit.jupiter.api.Assertions.assertTrue(SqlServerDialect.versionRefusal("13.0.6300.2", 2)
                .contains("2017 (14.x) or later"));
        org.junit.jupiter.api.Assertions.assertNull(SqlServerDialect.versionRefusal("14.0.3465.1", 3));
        org.junit.jupiter.api.Assertions.assertNull(SqlServerDialect.versionRefusal("16.0.4135.4", 4));
        org.junit.jupiter.api.Assertions.assertNull(SqlServerDialect.versionRefusal("12.0.2000.8", 5), "Azure SQL Database");
        org.junit.jupiter.api.Assertions.assertNull(SqlServerDialect.versionRefusal("12.0.2000.8", 8), "Azure SQL Managed Instance");
        org.junit.jupiter.api.Assertions.assertNotNull(SqlServerDialect.versionRefusal("12.0.6024.0", 3), "boxed 2014");
    }

    /** Review 2's L3: every object is in dbo, where the SQL enqueue calls its function; another default schema is refused. */
    @Test
    void aDefaultSchemaOtherThanDboIsRefusedWithTheFix() {
        org.junit.jupiter.api.Assertions.assertNull(SqlServerDialect.schemaRefusal("dbo"));
        org.junit.jupiter.api.Assertions.assertNull(SqlServerDialect.schemaRefusal("DBO"));
        org.junit.jupiter.api.Assertions.assertNull(SqlServerDialect.schemaRefusal(null), "no default schema: dbo");
        String refusal = SqlServerDialect.schemaRefusal("app");
        org.junit.jupiter.api.Assertions.assertNotNull(refusal);
        org.junit.jupiter.api.Assertions.assertTrue(refusal.contains("default schema is app")
                && refusal.contains("DEFAULT_SCHEMA = dbo"), refusal);
    }

    @Test
    void deadlocksConflictsAndLockTimeoutsAreRetried() {
        // 1222: the connection's lock timeout; 51205/51222: job_group_lock's deadlock and timeout
        for (int code : new int[] {1205, 3960, 1204, 1222, 51205, 51222, 40197}) {
            assertEquals(StoreException.Kind.TRANSIENT, kindOf(code, "S0001"), "error " + code);
        }
        // SQLSTATE 40001 (serialization failure / deadlock) whatever the number
        assertEquals(StoreException.Kind.TRANSIENT, kindOf(0, "40001"));
        // Babelfish's lock timeout, as it reports it (seen there: that number, that message); its
        // number alone is every unmapped PostgreSQL error, so the message decides
        assertEquals(StoreException.Kind.TRANSIENT, dialect.classify(new SQLException(
                "canceling statement due to lock timeout", "S0001", 33557097)));
        assertNotEquals(StoreException.Kind.TRANSIENT, dialect.classify(new SQLException(
                "relation \"x\" does not exist", "S0001", 33557097)));
    }

    @Test
    void aDatabaseThatCannotBeOpenedIsUnavailable() {
        // Azure SQL throttling asks for about 10 s: answered 503 with Retry-After, not retried at once
        // also: a filegroup or the log full (1105, 9002), a read-only database (3906), a login
        // refused during a failover (18456), an availability-group replica not taking this (976, 983, 978)
        for (int code : new int[] {4060, 40613, 904, 921, 922, 942, 6005, 40501, 49918, 49919, 49920, 10928, 10929,
                1105, 9002, 3906, 18456, 976, 983, 978}) {
            assertEquals(StoreException.Kind.UNAVAILABLE, kindOf(code, "S0001"), "error " + code);
        }
        assertEquals(StoreException.Kind.UNAVAILABLE, kindOf(0, "08S01"), "connection failure");
    }

    @Test
    void aRevokedPermissionIsARefusalAnOperatorMustFix() {
        for (int code : new int[] {229, 230, 262, 916}) {
            assertEquals(StoreException.Kind.REFUSED, kindOf(code, "S0001"), "error " + code);
        }
    }

    @Test
    void duplicateKeysAndEverythingElse() {
        assertEquals(StoreException.Kind.DUPLICATE_KEY, kindOf(2601, "23000"));
        assertEquals(StoreException.Kind.DUPLICATE_KEY, kindOf(2627, "23000"));
        assertEquals(StoreException.Kind.OTHER, kindOf(208, "S0002"), "invalid object name is a bug, not a retry");
        assertEquals(StoreException.Kind.OTHER, kindOf(8152, "22001"), "truncation");
    }

    /**
     * Instants travel as UTC wall-clock text, whatever the JVM's zone: 2025-03-30T01:30Z is
     * 02:30 in Paris that night, a time that does not exist there (clocks jump from 02:00 to
     * 03:00), and routing it through java.sql.Timestamp in that zone would shift it.
     */
    @Test
    void instantsGoAsUtcTextWhateverTheJvmZone() {
        java.util.TimeZone before = java.util.TimeZone.getDefault();
        try {
            java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("Europe/Paris"));
            java.time.Instant gap = java.time.Instant.parse("2025-03-30T01:30:00.123456789Z");
            assertEquals("2025-03-30T01:30:00.123456", SqlServerDialect.wire(gap));
            assertEquals(java.time.Instant.parse("2025-03-30T01:30:00.123456Z"),
                    SqlServerDialect.parseWire("2025-03-30 01:30:00.1234560"));
            assertEquals(java.time.Instant.parse("2025-03-30T01:30:00Z"), SqlServerDialect.parseWire("2025-03-30 01:30:00"));
        } finally {
            java.util.TimeZone.setDefault(before);
        }
    }

    @Test
    void theCauseChainIsSearched() {
        SQLException outer = new SQLException("wrapper", "HY000", 0);
        outer.initCause(new SQLException("deadlock", "40001", 1205));
        assertEquals(StoreException.Kind.TRANSIENT, dialect.classify(outer));
    }
}
