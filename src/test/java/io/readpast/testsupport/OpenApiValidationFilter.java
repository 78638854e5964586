package io.readpast.testsupport;

import io.restassured.filter.FilterContext;
import io.restassured.response.Response;
import io.restassured.specification.FilterableRequestSpecification;
import io.restassured.specification.FilterableResponseSpecification;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Checks every REST Assured exchange of the suite against the committed OpenAPI document
 * ({@link OpenApiValidation}); a finding fails the request's test at once. Installed for every
 * test class by {@link OpenApiValidationExtension}.
 */
public final class OpenApiValidationFilter implements io.restassured.filter.Filter {

    @Override
    public Response filter(FilterableRequestSpecification req, FilterableResponseSpecification res, FilterContext ctx) {
        Response r = ctx.next(req, res);
        String body = body(req.getBody());
        List<String> findings = OpenApiValidation.get().check(new OpenApiValidation.Exchange(req.getMethod(),
                URI.create(req.getURI()), req.getContentType(), body, r.getStatusCode(), r.getContentType(),
                name -> r.getHeader(name), r.asByteArray()));
        if (!findings.isEmpty()) {
            throw new AssertionError("The answer does not keep to openapi/openapi.json:\n  "
                    + String.join("\n  ", findings) + "\nanswer: " + r.asString());
        }
        return r;
    }

    private static String body(Object b) {
        if (b == null) {
            return null;
        }
        if (b instanceof String s) {
            return s;
        }
        if (b instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        try {
            return Http.JSON.writeValueAsString(b);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return String.valueOf(b);
        }
    }
}
