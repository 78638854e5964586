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

    void routes(@Observes Router router) {
        // the root is the dashboard: a newcomer opening http://host:8080/ lands there
        router.get("/").handler(rc -> {
            if ("/".equals(rc.normalizedPath())) {
                rc.redirect("/ui/");
            } else {
                rc.next();
            }
        });
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
