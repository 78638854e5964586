package io.readpast.api.http;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The lease id check by hand says what the pattern it replaced said, on near-misses of every kind. */
class UuidTextTest {

    private static final Pattern PATTERN =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    @Test
    void agreesWithThePattern() {
        Random random = new Random(11);
        String alphabet = "0123456789abcdefABCDEFgG-xZ \u00e9";
        String good = "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b";
        for (int run = 0; run < 300_000; run++) {
            StringBuilder s = new StringBuilder(good);
            for (int k = random.nextInt(3); k >= 0; k--) {
                int at = random.nextInt(s.length());
                switch (random.nextInt(3)) {
                    case 0 -> s.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
                    case 1 -> s.deleteCharAt(at);
                    default -> s.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
                }
            }
            String t = s.toString();
            assertEquals(PATTERN.matcher(t).matches(), Validate.isUuidText(t), t);
        }
        assertEquals(true, Validate.isUuidText(good.toUpperCase()));
        assertEquals(false, Validate.isUuidText(""));
    }
}
