package io.readpast.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;

/**
 * Strict request parsing: unknown fields, strings where numbers belong, floats where integers
 * belong and the like are 400s rather than silently coerced.
 */
@Singleton
public class JacksonConfig implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
        mapper.configure(DeserializationFeature.ACCEPT_FLOAT_AS_INT, false);
        mapper.configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true);
        mapper.configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true);
        mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
        for (LogicalType t : new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean,
                LogicalType.Textual}) {
            mapper.coercionConfigFor(t).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
            mapper.coercionConfigFor(t).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
            mapper.coercionConfigFor(t).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
            mapper.coercionConfigFor(t).setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        }
        // Integer shape into an integer target stays allowed, and so on: only cross-type coercion fails.
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.Integer, CoercionAction.TryConvert);
        mapper.coercionConfigFor(LogicalType.Float).setCoercion(CoercionInputShape.Float, CoercionAction.TryConvert);
        mapper.coercionConfigFor(LogicalType.Float).setCoercion(CoercionInputShape.Integer, CoercionAction.TryConvert);
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Boolean, CoercionAction.TryConvert);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.String, CoercionAction.TryConvert);
    }
}
