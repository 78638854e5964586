package driver.kit;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.List;

/** Reads a POST /claim answer with a streaming parser (what a worker needs of it, nothing more). */
public final class Claims {
    private Claims() {
    }

    /**
     * Appends {"id", "leaseId", "result": null} for each job to {@code ack} (comma-separated) and
     * returns {jobs, acks answered 200}.
     */
    public static int[] read(byte[] body, StringBuilder ack) throws IOException {
        return readTimes(body, ack, null);
    }

    /**
     * As {@link #read}, and adds each job's payload "t" (the producer's send time) to {@code sent}
     * (when not null).
     */
    public static int[] readTimes(byte[] body, StringBuilder ack, List<Long> sent) throws IOException {
        int jobs = 0;
        int ok = 0;
        try (JsonParser p = Http.JSON.getFactory().createParser(body)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken t = p.nextToken();
                if (t == JsonToken.START_ARRAY && ("jobs".equals(field) || "acks".equals(field))) {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        String id = null;
                        String lease = null;
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String k = p.currentName();
                            JsonToken v = p.nextToken();
                            if ("jobs".equals(field) && "id".equals(k)) {
                                id = p.getText();
                            } else if ("jobs".equals(field) && "leaseId".equals(k)) {
                                lease = p.getText();
                            } else if ("jobs".equals(field) && "payload".equals(k) && v == JsonToken.START_OBJECT) {
                                while (p.nextToken() == JsonToken.FIELD_NAME) {
                                    String pk = p.currentName();
                                    p.nextToken();
                                    if ("t".equals(pk) && sent != null) {
                                        sent.add(p.getLongValue());
                                    } else {
                                        p.skipChildren();
                                    }
                                }
                            } else if ("acks".equals(field) && "status".equals(k)) {
                                ok += p.getIntValue() == 200 ? 1 : 0;
                            } else {
                                p.skipChildren();
                            }
                        }
                        if ("jobs".equals(field)) {
                            ack.append(jobs++ == 0 ? "" : ",").append("{\"id\":\"").append(id)
                                    .append("\",\"leaseId\":\"").append(lease).append("\",\"result\":null}");
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        return new int[] {jobs, ok};
    }
}
