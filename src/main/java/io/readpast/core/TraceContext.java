package io.readpast.core;

/**
 * A W3C Trace Context (traceparent, and tracestate when given) that an enqueue carried, stored
 * with the job and handed to its workers. Parsed leniently, as the W3C recommendation asks of a
 * receiver: a traceparent that does not parse is dropped (the job simply has no trace), never
 * refused, and a tracestate is kept only beside a valid traceparent.
 */
public record TraceContext(String traceparent, String tracestate) {

    /** tracestate longer than this is dropped (W3C: receivers may drop over 512 characters). */
    public static final int TRACESTATE_MAX = 512;
    private static final int TRACESTATE_MEMBERS_MAX = 32;
    private static final int TRACEPARENT_LENGTH = 55;

    /** The context the headers (or fields) give, or null when the traceparent is absent or malformed. */
    public static TraceContext parse(String traceparent, String tracestate) {
        String parent = traceparent(traceparent);
        if (parent == null) {
            return null;
        }
        return new TraceContext(parent, tracestate(tracestate));
    }

    /** The trace id (32 hex digits). */
    public String traceId() {
        return traceparent.substring(3, 35);
    }

    /** The parent span id (16 hex digits). */
    public String spanId() {
        return traceparent.substring(36, 52);
    }

    /** Whether the producer sampled its trace (the flags' sampled bit). */
    public boolean sampled() {
        return (Integer.parseInt(traceparent.substring(53, 55), 16) & 1) == 1;
    }

    /**
     * version "-" trace-id "-" parent-id "-" flags, lowercase hex; version ff, an all-zero trace
     * or parent id, and for version 00 anything after the flags, are invalid. A later version
     * may carry more after the flags (separated by "-"): its first 55 characters are kept.
     */
    static String traceparent(String value) {
        if (value == null) {
            return null;
        }
        String v = value.strip();
        if (v.length() < TRACEPARENT_LENGTH) {
            return null;
        }
        String version = v.substring(0, 2);
        if (!hex(version) || version.equals("ff")) {
            return null;
        }
        if (v.length() > TRACEPARENT_LENGTH && (version.equals("00") || v.charAt(TRACEPARENT_LENGTH) != '-')) {
            return null;
        }
        v = v.substring(0, TRACEPARENT_LENGTH);
        if (v.charAt(2) != '-' || v.charAt(35) != '-' || v.charAt(52) != '-') {
            return null;
        }
        String traceId = v.substring(3, 35);
        String parentId = v.substring(36, 52);
        String flags = v.substring(53, 55);
        if (!hex(traceId) || !hex(parentId) || !hex(flags) || zeros(traceId) || zeros(parentId)) {
            return null;
        }
        return v;
    }

    /** At most 512 printable ASCII characters in at most 32 comma-separated members; else none. */
    static String tracestate(String value) {
        if (value == null) {
            return null;
        }
        String v = value.strip();
        if (v.isEmpty() || v.length() > TRACESTATE_MAX) {
            return null;
        }
        int members = 1;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return null;
            }
            if (c == ',') {
                members++;
            }
        }
        return members > TRACESTATE_MEMBERS_MAX ? null : v;
    }

    private static boolean hex(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static boolean zeros(String s) {
        return s.chars().allMatch(c -> c == '0');
    }
}
