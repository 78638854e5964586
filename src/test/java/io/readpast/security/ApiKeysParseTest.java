package io.readpast.security;

import io.readpast.store.Database;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** READPAST_API_KEYS parsing: good entries load, bad ones stop start-up with a clear line. */
class ApiKeysParseTest {

    static final String HEX = ApiKeys.digestHex("rp_example");

    @Test
    void parsesRolesAndScopes() {
        List<ApiKey> keys = ApiKeys.parse("a:admin:" + HEX + ",\n b:producer+worker:" + HEX.toUpperCase()
                + "\n# comment\nc:worker:" + HEX + ":queues=emails|sms", "test");
        assertEquals(3, keys.size());
        assertTrue(keys.get(0).has(Role.WORKER), "admin may do everything");
        assertNull(keys.get(0).queues());
        assertEquals(Set.of(Role.PRODUCER, Role.WORKER), keys.get(1).roles());
        assertEquals(Set.of("emails", "sms"), keys.get(2).queues());
        assertTrue(keys.get(2).mayUseQueue("sms"));
        assertTrue(!keys.get(2).mayUseQueue("billing"));
    }

    @Test
    void rejectsBadEntriesWithoutEchoingThem() {
        for (String bad : List.of("nocolons", "a:admin:rp_plaintextkey", "a:root:" + HEX, "a:admin:" + HEX + ":queues=x",
                "bad name:worker:" + HEX, "a:worker:" + HEX + ",a:worker:" + HEX, "a:worker:" + HEX + ":scope=x")) {
            io.readpast.config.StartupFailure e = assertThrows(io.readpast.config.StartupFailure.class, () -> ApiKeys.parse(bad, "READPAST_API_KEYS"));
            assertTrue(e.getMessage().startsWith("READPAST_API_KEYS entry"), e.getMessage());
            assertTrue(!e.getMessage().contains("rp_plaintextkey"));
        }
    }

    @Test
    void mintedKeysAreRandomAndDigestsAreHex() {
        String a = ApiKeys.mint();
        String b = ApiKeys.mint();
        assertTrue(a.startsWith("rp_") && a.length() > 40);
        assertTrue(!a.equals(b));
        assertTrue(ApiKeys.digestHex(a).matches("[0-9a-f]{64}"));
    }
}
