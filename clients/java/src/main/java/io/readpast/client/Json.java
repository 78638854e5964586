package io.readpast.client;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer, so that the library needs nothing beyond the JDK. Reading gives
 * {@code Map<String, Object>} (insertion-ordered), {@code List<Object>}, {@code String},
 * {@code Long} (integers that fit), {@code Double} or {@code BigDecimal}, {@code Boolean} and
 * {@code null}. Writing takes those, any {@code Map}, {@code Collection}, array, {@code Number},
 * {@code CharSequence}, {@link Raw} (JSON text sent as is), records (their components), and
 * anything else as its {@code toString()}.
 */
public final class Json {

    private Json() {
    }

    /** JSON text that is written as is (it must be valid JSON). */
    public record Raw(String json) {
        @Override
        public String toString() {
            return json;
        }
    }

    /** Parses JSON text. */
    public static Object parse(String text) {
        Parser p = new Parser(text);
        p.ws();
        Object v = p.value();
        p.ws();
        if (p.i != text.length()) {
            throw p.error("trailing characters");
        }
        return v;
    }

    /** Writes a value as JSON text. */
    public static String write(Object value) {
        StringBuilder b = new StringBuilder(64);
        write(value, b);
        return b.toString();
    }

    static void write(Object v, StringBuilder b) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Raw r) {
            b.append(r.json());
        } else if (v instanceof CharSequence s) {
            string(s, b);
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long || v instanceof Short
                || v instanceof Byte || v instanceof BigDecimal || v instanceof java.math.BigInteger) {
            b.append(v);
        } else if (v instanceof Number n) {
            double d = n.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new IllegalArgumentException("JSON has no " + d);
            }
            b.append(d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d));
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(String.valueOf(e.getKey()), b);
                b.append(':');
                write(e.getValue(), b);
            }
            b.append('}');
        } else if (v instanceof Collection<?> c) {
            b.append('[');
            boolean first = true;
            for (Object o : c) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                write(o, b);
            }
            b.append(']');
        } else if (v instanceof Object[] a) {
            write(List.of(a), b);
        } else if (v.getClass().isRecord()) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (var c : v.getClass().getRecordComponents()) {
                try {
                    m.put(c.getName(), c.getAccessor().invoke(v));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalArgumentException("cannot read record component " + c.getName(), e);
                }
            }
            write(m, b);
        } else if (v instanceof Enum<?> e) {
            string(e.name(), b);
        } else {
            string(v.toString(), b);
        }
    }

    private static void string(CharSequence s, StringBuilder b) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    private static final class Parser {
        final String s;
        int i;
        /** Member names seen in this text: a claim's jobs repeat the same thirty names. */
        final String[] names = new String[128];

        Parser(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("invalid JSON at " + i + ": " + what);
        }

        void ws() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                    i++;
                } else {
                    return;
                }
            }
        }

        Object value() {
            if (i >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(i);
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    return number();
            }
        }

        Object literal(String word, Object v) {
            if (!s.startsWith(word, i)) {
                throw error("expected " + word);
            }
            i += word.length();
            return v;
        }

        /** A member name, shared with the same name seen before in this text when it has no escapes. */
        String name() {
            int start = i + 1;
            int h = 0;
            int j = start;
            while (j < s.length()) {
                char c = s.charAt(j);
                if (c == '"') {
                    break;
                }
                if (c == '\\') {
                    return string();
                }
                h = 31 * h + c;
                j++;
            }
            int len = j - start;
            int slot = (h ^ (h >>> 7)) & (names.length - 1);
            String known = names[slot];
            if (known != null && known.length() == len && s.regionMatches(start, known, 0, len)) {
                i = j + 1;
                return known;
            }
            String k = string();
            names[slot] = k;
            return k;
        }

        Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>(48);
            i++;
            ws();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return m;
            }
            while (true) {
                ws();
                if (i >= s.length() || s.charAt(i) != '"') {
                    throw error("expected a member name");
                }
                String k = name();
                ws();
                if (i >= s.length() || s.charAt(i) != ':') {
                    throw error("expected ':'");
                }
                i++;
                ws();
                m.put(k, value());
                ws();
                if (i >= s.length()) {
                    throw error("unexpected end");
                }
                char c = s.charAt(i++);
                if (c == '}') {
                    return m;
                }
                if (c != ',') {
                    throw error("expected ',' or '}'");
                }
            }
        }

        List<Object> array() {
            List<Object> l = new ArrayList<>();
            i++;
            ws();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return l;
            }
            while (true) {
                ws();
                l.add(value());
                ws();
                if (i >= s.length()) {
                    throw error("unexpected end");
                }
                char c = s.charAt(i++);
                if (c == ']') {
                    return l;
                }
                if (c != ',') {
                    throw error("expected ',' or ']'");
                }
            }
        }

        String string() {
            i++;
            int start = i;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == '"') {
                    return s.substring(start, i++);
                }
                if (c == '\\') {
                    break;
                }
                i++;
            }
            StringBuilder b = new StringBuilder(s.substring(start, i));
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    break;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw error("bad \\u escape");
                        }
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> b.append(e);
                }
            }
            throw error("unterminated string");
        }

        Object number() {
            int start = i;
            boolean fraction = false;
            while (i < s.length()) {
                char c = s.charAt(i);
                if ((c >= '0' && c <= '9') || c == '-' || c == '+') {
                    i++;
                } else if (c == '.' || c == 'e' || c == 'E') {
                    fraction = true;
                    i++;
                } else {
                    break;
                }
            }
            if (start == i) {
                throw error("unexpected character '" + s.charAt(i) + "'");
            }
            String t = s.substring(start, i);
            try {
                if (!fraction) {
                    if (t.length() < 19) {
                        return Long.parseLong(t);
                    }
                    return new BigDecimal(t);
                }
                double d = Double.parseDouble(t);
                return Double.isInfinite(d) ? new BigDecimal(t) : d;
            } catch (NumberFormatException e) {
                throw error("bad number " + t);
            }
        }
    }
}
