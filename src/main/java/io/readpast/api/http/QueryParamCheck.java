package io.readpast.api.http;

import io.readpast.http.Problem;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A query parameter the endpoint does not take is a 400 naming it, never ignored: a caller who
 * sends {@code GET /jobs?payload.customer=acme} must not believe the answer was filtered. The
 * names an endpoint takes are its method's {@code @QueryParam}s (on the resource class or the
 * {@code *Api} interface it implements), read once per method.
 */
public class QueryParamCheck {

    private final Map<Method, Set<String>> known = new ConcurrentHashMap<>();

    /** After authentication (a caller without a key learns nothing of the endpoint's parameters). */
    @ServerRequestFilter(priority = jakarta.ws.rs.Priorities.USER + 100)
    public Response check(ContainerRequestContext ctx, ResourceInfo info) {
        Method method = info.getResourceMethod();
        if (method == null) {
            return null;
        }
        var given = ctx.getUriInfo().getQueryParameters().keySet();
        if (given.isEmpty()) {
            return null;
        }
        Set<String> takes = known.computeIfAbsent(method, QueryParamCheck::queryParams);
        List<String> unknown = new ArrayList<>();
        for (String name : given) {
            if (!takes.contains(name)) {
                unknown.add(name);
            }
        }
        if (unknown.isEmpty()) {
            return null;
        }
        String names = String.join("', '", unknown.stream().sorted().map(n -> Validate.printable(n, 60)).toList());
        String detail = (unknown.size() == 1 ? "Unknown query parameter '" : "Unknown query parameters '") + names
                + "': " + (takes.isEmpty() ? "this endpoint takes none." : "this endpoint takes "
                + String.join(", ", takes) + ".");
        return Problem.response(400, "invalid-request", "Invalid request", detail,
                "/" + ctx.getUriInfo().getPath().replaceFirst("^/", ""));
    }

    /** The @QueryParam names of the method and of the interface methods it implements. */
    static Set<String> queryParams(Method method) {
        Set<String> names = new TreeSet<>();
        collect(method, names);
        for (Class<?> type : method.getDeclaringClass().getInterfaces()) {
            try {
                collect(type.getMethod(method.getName(), method.getParameterTypes()), names);
            } catch (NoSuchMethodException e) {
                // not one of this interface's methods
            }
        }
        return java.util.Collections.unmodifiableSet(names);
    }

    private static void collect(Method method, Set<String> names) {
        for (Annotation[] annotations : method.getParameterAnnotations()) {
            for (Annotation a : annotations) {
                if (a instanceof QueryParam q) {
                    names.add(q.value());
                }
            }
        }
    }
}
