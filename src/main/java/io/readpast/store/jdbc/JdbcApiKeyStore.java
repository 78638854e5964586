package io.readpast.store.jdbc;

import io.readpast.store.ApiKeyStore;
import io.readpast.store.Params;
import io.readpast.store.Stmt;
import io.readpast.store.StoredKey;

import java.util.List;

/** {@link ApiKeyStore} on the engine's named statements. */
final class JdbcApiKeyStore implements ApiKeyStore {

    private final SqlRunner sql;

    JdbcApiKeyStore(SqlRunner sql) {
        this.sql = sql;
    }

    @Override
    public List<StoredKey> apiKeyList() {
        return sql.oneStatement(c -> sql.query(c, Stmt.API_KEY_LIST, Params.of(), (rs, cols) -> new StoredKey(
                RowReader.str(rs, cols, "name"), RowReader.str(rs, cols, "roles"),
                RowReader.str(rs, cols, "digest").strip(), RowReader.str(rs, cols, "queues"),
                RowReader.str(rs, cols, "origin"), RowReader.str(rs, cols, "created_by"),
                sql.rows().instant(rs, cols, "created_at"))));
    }

    @Override
    public boolean apiKeyInsert(StoredKey key) {
        Params p = Params.of().str("name", key.name()).str("roles", key.roles()).str("digest", key.digest())
                .str("queues", key.queues()).str("origin", key.origin()).str("created_by", key.createdBy());
        return sql.oneStatement(c -> sql.execute(c, Stmt.API_KEY_INSERT, p));
    }

    @Override
    public boolean apiKeyDelete(String name) {
        return sql.tx(c -> sql.execute(c, Stmt.API_KEY_DELETE, Params.of().str("name", name)));
    }
}
