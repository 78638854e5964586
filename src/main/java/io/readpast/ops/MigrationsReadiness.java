package io.readpast.ops;

import io.readpast.store.Database;
import io.readpast.store.JobStore;
import io.readpast.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready when the broker started (database reached, migrations applied, statements loaded)
 * and the database answers a query of Readpast's own tables now. (The datasource check of
 * quarkus-agroal reports the pool beside it.)
 */
@Readiness
@ApplicationScoped
public class MigrationsReadiness implements HealthCheck {

    private final Database database;
    private final JobStore store;

    public MigrationsReadiness(Database database, JobStore store) {
        this.database = database;
        this.store = store;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("readpast-database");
        if (database.engine() == null) {
            return response.down().withData("reason", "not started").build();
        }
        try {
            store.jobAnyDue(java.util.List.of());
            return response.up().withData("engine", database.engine().name()).withData("migrations", "applied").build();
        } catch (StoreException e) {
            return response.down().withData("engine", database.engine().name())
                    .withData("reason", "database unavailable").build();
        }
    }
}
