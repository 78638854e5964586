package io.readpast.store.contract;

import io.quarkus.test.junit.QuarkusTest;
import io.readpast.config.Engine;

/**
 * {@link StoreContract} on SQL Server (and Babelfish, which speaks its protocol): it runs with
 * scripts/test-sqlserver.sh. No gaps to declare: the contract is what both engines do.
 */
@QuarkusTest
class SqlServerStoreContractTest extends StoreContract {

    @Override
    Engine engine() {
        return Engine.SQLSERVER;
    }
}
