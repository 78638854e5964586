package io.readpast.api.http;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The hand-written UTF-8 check against the JDK's strict decoder: the same verdict and the same
 * byte for every input, on the sequences that matter and on a million random ones.
 */
class StrictUtf8Test {

    /** The JDK's answer: where a REPORTing decoder stops, or -1. */
    private static int jdk(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length + 1);
        CoderResult r = decoder.decode(in, out, true);
        if (r.isError()) {
            return in.position();
        }
        return decoder.flush(out).isError() ? in.position() : -1;
    }

    private static byte[] hex(String s) {
        String[] parts = s.trim().split(" +");
        byte[] b = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            b[i] = (byte) Integer.parseInt(parts[i], 16);
        }
        return b;
    }

    @Test
    void theEdgesOfEachFormAgreeWithTheJdk() {
        String[] cases = {
            "41", "7F", "C2 80", "DF BF", "C0 AF", "C1 BF", "E0 A0 80", "E0 9F BF", "ED 9F BF", "ED A0 80",
            "ED BF BF", "EE 80 80", "EF BF BF", "F0 90 80 80", "F0 8F BF BF", "F4 8F BF BF", "F4 90 80 80",
            "F5 80 80 80", "FF", "80", "BF", "41 E2 82", "41 E2 82 AC", "E2 41 82", "E2 82 41", "F0 90 80",
            "F0 90 80 41", "C2", "22 7B 7D 22 C3 A9 22",
        };
        for (String c : cases) {
            byte[] b = hex(c);
            assertEquals(jdk(b), StrictUtf8.firstInvalidByte(b), c);
        }
        // the cases that matter to a proxy in front, by name
        assertEquals(1, StrictUtf8.firstInvalidByte(hex("2F C0 AF")), "overlong '/'");
        assertEquals(0, StrictUtf8.firstInvalidByte(hex("ED A0 80")), "an encoded surrogate");
        assertEquals(-1, StrictUtf8.firstInvalidByte("{\"payload\":\"€ 😀 é\"}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void randomBytesAgreeWithTheJdk() {
        Random random = new Random(20261207L);
        int[] interesting = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
            0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
        for (int run = 0; run < 1_000_000; run++) {
            byte[] b = new byte[1 + random.nextInt(8)];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (random.nextBoolean() ? interesting[random.nextInt(interesting.length)]
                        : random.nextInt(256));
            }
            int expected = jdk(b);
            if (expected != StrictUtf8.firstInvalidByte(b)) {
                assertEquals(expected, StrictUtf8.firstInvalidByte(b), java.util.HexFormat.ofDelimiter(" ").formatHex(b));
            }
        }
    }
}
