package io.readpast.ops;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Request ids made by the broker are version-4 UUIDs as {@code UUID.randomUUID()} wrote them, and do not repeat. */
class RequestIdsTest {

    @Test
    void idsAreRandomVersionFourUuids() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            String id = RequestIds.newId();
            UUID u = UUID.fromString(id);
            assertEquals(4, u.version(), id);
            assertEquals(2, u.variant(), id);
            assertEquals(u.toString(), id);
            assertTrue(seen.add(id), "repeated: " + id);
        }
    }
}
