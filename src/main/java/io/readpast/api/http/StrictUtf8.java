package io.readpast.api.http;

import io.readpast.core.BrokerException;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

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

    /** Where {@code bytes} stops being strict UTF-8 (Java's decoder refuses non-shortest forms), or -1. */
    static int firstInvalidByte(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(8192);
        while (true) {
            CoderResult r = decoder.decode(in, out, true);
            if (r.isError()) {
                return in.position();
            }
            if (r.isUnderflow()) {
                r = decoder.flush(out);
                return r.isError() ? in.position() : -1;
            }
            out.clear();
        }
    }
}
