package io.readpast.api.http;

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
 * belong, a member given twice and the like are 400s rather than silently coerced. JSON values
 * handed through (payloads, results) keep every number exactly: a number with a fraction or an
 * exponent is read as a BigDecimal with its scale (never a double, which would round
 * 12345678901234567.89 and turn 1e400 into Infinity), an integer of any size as a BigInteger.
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
        // {"leaseId": "a", "leaseId": "b"}: a front proxy may read the first, Jackson the last
        mapper.enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.configure(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS, true);
        mapper.configure(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS, true);
        // keep 1.10 as 1.10 (not stripped to 1.1)
        mapper.setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));
        // a string neither database can store as given (a lone UTF-16 surrogate) is refused
        mapper.registerModule(new com.fasterxml.jackson.databind.module.SimpleModule("readpast-storable-strings")
                .addDeserializer(String.class, new StorableStrings()));
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

    /**
     * Every string of a request body, as Jackson reads it, checked for what no database here
     * stores faithfully: a lone UTF-16 surrogate ("\\ud800" with no partner) would become "?" on
     * the way in, so "order-\\ud800-42" would find the job of "order-?-42".
     */
    static final class StorableStrings extends com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer<String> {

        StorableStrings() {
            super(String.class);
        }

        @Override
        public String deserialize(com.fasterxml.jackson.core.JsonParser p,
                                  com.fasterxml.jackson.databind.DeserializationContext ctxt) throws java.io.IOException {
            String s = com.fasterxml.jackson.databind.deser.std.StringDeserializer.instance.deserialize(p, ctxt);
            if (s != null && Validate.loneSurrogateAt(s) >= 0) {
                throw new UnstorableText(p, "a lone UTF-16 surrogate at character " + Validate.loneSurrogateAt(s));
            }
            return s;
        }
    }

    /** A request string that cannot be stored as given; {@link ProblemMappers#describe} names its field. */
    static final class UnstorableText extends com.fasterxml.jackson.databind.JsonMappingException {
        private final String why;

        UnstorableText(com.fasterxml.jackson.core.JsonParser p, String why) {
            super(p, why);
            this.why = why;
        }

        String why() {
            return why;
        }
    }
}
