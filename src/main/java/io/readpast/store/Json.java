package io.readpast.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.StringWriter;
import java.util.List;

/**
 * The one JSON writer for values stored as JSON text or bound as JSON parameters (tags,
 * progress, queue lists, batch items). Request and response bodies go through Quarkus' own
 * ObjectMapper instead.
 */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    /** The same mapper, for streaming writers and for reading JSON text the database returns. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An item's members, written into its object. */
    @FunctionalInterface
    public interface Members<T> {
        void write(JsonGenerator g, T item) throws IOException;
    }

    /**
     * A JSON array of one object per item, each object's members written by {@code members}
     * (batch items bound as one JSON parameter); {@code size} the text's expected length, so
     * that it is not copied as it grows.
     */
    public static <T> String array(List<T> items, int size, Members<T> members) {
        StringWriter w = new StringWriter(size);
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(w)) {
            g.writeStartArray();
            for (T item : items) {
                g.writeStartObject();
                members.write(g, item);
                g.writeEndObject();
            }
            g.writeEndArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return w.toString();
    }
}
