package io.readpast.api.http;

import io.readpast.core.BrokerException;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;

import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * Every request body is read as strict UTF-8 before it is parsed: an overlong form (such as
 * {@code C0 AF} for "/"), an encoded surrogate or a truncated sequence is a 400 naming the byte,
 * never decoded leniently into something a proxy in front did not see.
 */
@Provider
public class StrictUtf8 implements ReaderInterceptor {

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext ctx) throws IOException {
        byte[] body = ctx.getInputStream().readAllBytes();
        int bad = firstInvalidByte(body);
        if (bad >= 0) {
            throw BrokerException.invalid("The request body is not valid UTF-8 (at byte " + bad
                    + "): send JSON as UTF-8, without overlong or encoded-surrogate sequences.");
        }
        ctx.setInputStream(new ByteArrayInputStream(body));
        return ctx.proceed();
    }

    /**
     * Where {@code bytes} stops being strict UTF-8 (RFC 3629: shortest forms only, no encoded
     * surrogates, nothing past U+10FFFF, no sequence cut short), or -1: the index of the first
     * byte of the first bad sequence. Written out rather than through a {@code CharsetDecoder}
     * so that a request allocates nothing for it, and ASCII (most of any JSON body) is one
     * comparison per byte.
     */
    static int firstInvalidByte(byte[] bytes) {
        int n = bytes.length;
        int i = 0;
        while (i < n) {
            int b = bytes[i];
            if (b >= 0) {
                i++;
                continue;
            }
            b &= 0xFF;
            int need;
            int lo = 0x80;
            int hi = 0xBF;
            if (b >= 0xC2 && b <= 0xDF) {
                need = 1;
            } else if (b >= 0xE0 && b <= 0xEF) {
                need = 2;
                if (b == 0xE0) {
                    lo = 0xA0; // shorter forms are overlong
                } else if (b == 0xED) {
                    hi = 0x9F; // U+D800..U+DFFF, surrogates
                }
            } else if (b >= 0xF0 && b <= 0xF4) {
                need = 3;
                if (b == 0xF0) {
                    lo = 0x90;
                } else if (b == 0xF4) {
                    hi = 0x8F; // past U+10FFFF
                }
            } else {
                return i; // a continuation byte first, C0/C1 (overlong), or F5..FF
            }
            if (i + need >= n) {
                return i;
            }
            int second = bytes[i + 1] & 0xFF;
            if (second < lo || second > hi) {
                return i;
            }
            for (int k = 2; k <= need; k++) {
                int c = bytes[i + k] & 0xFF;
                if (c < 0x80 || c > 0xBF) {
                    return i;
                }
            }
            i += need + 1;
        }
        return -1;
    }
}
