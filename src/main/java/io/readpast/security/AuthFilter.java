package io.readpast.security;

import io.readpast.http.Problem;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.lang.reflect.Method;

/**
 * Authenticates every API call ({@code Authorization: Bearer <key>}) and checks the method's
 * {@link Allowed} roles before the resource runs, so neither answer depends on whether a job
 * exists: 401 without a valid key, 403 for a key without the role. Health, metrics and the
 * OpenAPI document are not API resources and stay open.
 */
public class AuthFilter {

    private final ApiKeys keys;
    private final Caller caller;

    public AuthFilter(ApiKeys keys, Caller caller) {
        this.keys = keys;
        this.caller = caller;
    }

    @ServerRequestFilter
    public Response authenticate(ContainerRequestContext ctx, ResourceInfo info) {
        if (!keys.enabled()) {
            return null;
        }
        String header = ctx.getHeaderString("Authorization");
        String presented = null;
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            presented = header.substring(7).strip();
        }
        ApiKey key = keys.authenticate(presented);
        String path = "/" + ctx.getUriInfo().getPath().replaceFirst("^/", "");
        if (key == null) {
            String detail;
            if (header == null) {
                detail = "Send an API key as 'Authorization: Bearer <key>'.";
            } else if (presented == null && validWithoutScheme(header)) {
                // a real key, sent without the scheme (or with another one): say what to change
                detail = "This API key is valid, but the header must read 'Authorization: Bearer <key>': "
                        + "put 'Bearer ' before the key.";
            } else if (presented == null) {
                detail = "The Authorization header must read 'Bearer <key>'.";
            } else {
                detail = "The API key was not accepted.";
            }
            Response r = Problem.response(401, "unauthorized", "Unauthorized", detail, path);
            return Response.fromResponse(r).header("WWW-Authenticate", "Bearer realm=\"readpast\"").build();
        }
        Method method = info.getResourceMethod();
        Allowed allowed = method == null ? null : method.getAnnotation(Allowed.class);
        if (allowed == null && method != null) {
            allowed = method.getDeclaringClass().getAnnotation(Allowed.class);
        }
        boolean ok = key.has(Role.ADMIN);
        if (!ok && allowed != null) {
            for (Role r : allowed.value()) {
                ok |= key.has(r);
            }
        }
        if (!ok) {
            String needed = allowed == null ? "admin"
                    : java.util.Arrays.stream(allowed.value()).map(r -> r.name().toLowerCase(java.util.Locale.ROOT))
                            .collect(java.util.stream.Collectors.joining(" or ")) + " (or admin)";
            String has = key.roles().stream().map(r -> r.name().toLowerCase(java.util.Locale.ROOT)).sorted()
                    .collect(java.util.stream.Collectors.joining("+"));
            return Problem.response(403, "forbidden", "Forbidden", "This needs the " + needed + " role; the key '"
                    + key.name() + "' has " + has + ".", path);
        }
        caller.set(key);
        return null;
    }

    /** True when the header, or what follows its first space ("Token rp_..."), is a valid key. */
    private boolean validWithoutScheme(String header) {
        String raw = header.strip();
        int space = raw.indexOf(' ');
        return keys.authenticate(raw) != null || (space > 0 && keys.authenticate(raw.substring(space + 1).strip()) != null);
    }
}
