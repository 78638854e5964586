package io.readpast.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

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
}
