package io.readpast.ui;

import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * The dashboard is static files in {@code META-INF/resources/ui/} (served by Quarkus, no key
 * needed to load them; every API call they make carries the key). This only sends {@code /ui}
 * to {@code /ui/}, so that the page's relative links resolve, and {@code /} there too. Its security headers are set in
 * application.properties ({@code quarkus.http.header...}).
 */
@ApplicationScoped
public class DashboardRoutes {

    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "readpast.auth.enabled", defaultValue = "true")
    boolean authEnabled;

    void routes(@Observes Router router) {
        // the root is the dashboard: a newcomer opening http://host:8080/ lands there
        router.get("/").handler(rc -> {
            if ("/".equals(rc.normalizedPath())) {
                rc.redirect("/ui/");
            } else {
                rc.next();
            }
        });
        // whether the API needs a key, so that the page knows to show its login before calling
        // anything (a refused GET /me would be an error in the browser console); no key needed
        router.get("/ui/auth").handler(rc -> rc.response()
                .putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store")
                .end("{\"authEnabled\": " + authEnabled + "}"));
        // a Vert.x route for /ui also matches /ui/: only the bare path is redirected
        router.get("/ui").handler(rc -> {
            if ("/ui".equals(rc.normalizedPath())) {
                rc.redirect("/ui/");
            } else {
                rc.next();
            }
        });
    }
}
