package io.readpast.api.http;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The payload limit counts UTF-8 bytes as the encoder writes them, without encoding. */
class Utf8LengthTest {

    @Test
    void countsWhatTheEncoderWrites() {
        Random random = new Random(7);
        char[] pool = {'a', '~', '\u00e9', '\u07ff', '\u0800', '\u20ac', '\uffff', '\ud83d', '\ude00', '\ud800', '\udfff'};
        for (int run = 0; run < 200_000; run++) {
            StringBuilder b = new StringBuilder();
            for (int i = random.nextInt(10); i > 0; i--) {
                b.append(random.nextBoolean() ? pool[random.nextInt(pool.length)] : (char) random.nextInt(0x10000));
            }
            String s = b.toString();
            assertEquals(s.getBytes(StandardCharsets.UTF_8).length, JobBodies.utf8Length(s), s);
        }
        assertEquals(4, JobBodies.utf8Length("\ud83d\ude00"));
        assertEquals(0, JobBodies.utf8Length(""));
    }
}
