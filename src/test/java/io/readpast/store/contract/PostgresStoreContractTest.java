package io.readpast.store.contract;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;

/** {@link StoreContract} on PostgreSQL. PostgreSQL has no gaps to declare. */
@QuarkusTest
class PostgresStoreContractTest extends StoreContract {

    @Override
    Engine engine() {
        return Engine.POSTGRESQL;
    }
}
