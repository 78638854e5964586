package io.readpast.store.jdbc;

import io.readpast.store.HousekeepingAges;
import io.readpast.store.MaintenanceStore;
import io.readpast.store.Params;
import io.readpast.store.Stmt;

import java.time.Instant;
import java.util.List;

import static io.readpast.store.jdbc.SqlRunner.single;

/** {@link MaintenanceStore} on the engine's named statements and its dialect. */
final class JdbcMaintenanceStore implements MaintenanceStore {

    private final SqlRunner sql;
    private final ClaimPath claims;
    private final Settlement settlement;

    JdbcMaintenanceStore(SqlRunner sql, ClaimPath claims, Settlement settlement) {
        this.settlement = settlement;
        this.sql = sql;
        this.claims = claims;
    }

    @Override
    public Instant dbNow() {
        return sql.oneStatement(c -> single(sql.query(c, Stmt.DB_NOW, Params.of(),
                        (rs, cols) -> sql.rows().instant(rs, cols, "now"))))
                .orElseThrow(() -> new IllegalStateException("the database returned no time"));
    }

    @Override
    public int archivePurgeOld(long olderThanMs, int limit) {
        return purgeOld(Stmt.ARCHIVE_PURGE_OLD, olderThanMs, limit);
    }

    @Override
    public int deadPurgeOld(long olderThanMs, int limit) {
        return purgeOld(Stmt.DEAD_PURGE_OLD, olderThanMs, limit);
    }

    @Override
    public int batchPurgeOld(long olderThanMs, int limit) {
        return purgeOld(Stmt.BATCH_PURGE_OLD, olderThanMs, limit);
    }

    private int purgeOld(Stmt stmt, long olderThanMs, int limit) {
        Params p = Params.of().lng("older_than_ms", olderThanMs).integer("limit", limit);
        return sql.oneStatement(c -> sql.query(c, stmt, p, (rs, cols) -> Boolean.TRUE).size());
    }

    @Override
    public List<String> jobExpirePending(int limit, long waitLimitMs) {
        Settlement.Released[] released = new Settlement.Released[1];
        List<String> queues = sql.tx(c -> {
            List<Settlement.Moved> moved = sql.query(c, Stmt.JOB_EXPIRE_PENDING,
                    Params.of().integer("limit", limit).lng("wait_limit_ms", waitLimitMs),
                    (rs, cols) -> new Settlement.Moved(rs.getLong(cols.get("id")), rs.getString(cols.get("queue")),
                            RowReader.lng(rs, cols, "batch_id"), rs.getBoolean(cols.get("has_dependents")), 4));
            released[0] = settlement.settle(c, moved);
            return moved.stream().map(Settlement.Moved::queue).toList();
        });
        settlement.announce(released[0]);
        return queues;
    }

    @Override
    public Purged housekeepingPurge(HousekeepingAges a) {
        Params p = Params.of().lng("fire_older_than_ms", a.fireOlderThanMs())
                .lng("delivered_older_than_ms", a.deliveredOlderThanMs()).lng("dead_older_than_ms", a.deadOlderThanMs())
                .integer("limit", a.limit());
        return sql.oneStatement(c -> single(sql.query(c, Stmt.HOUSEKEEPING_PURGE, p, (rs, cols) -> new Purged(
                rs.getInt(cols.get("fires")), rs.getInt(cols.get("unique_keys")), rs.getInt(cols.get("webhooks")),
                rs.getInt(cols.get("key_rates"))))))
                .orElse(new Purged(0, 0, 0, 0));
    }

    @Override
    public NextTimes featureNextTimes(long waitLimitMs) {
        return sql.oneStatement(c -> single(sql.query(c, Stmt.FEATURE_NEXT_TIMES, Params.of().lng("wait_limit_ms", waitLimitMs),
                        (rs, cols) -> new NextTimes(sql.rows().instant(rs, cols, "next_fire_at"),
                                sql.rows().instant(rs, cols, "next_expiry"), sql.rows().instant(rs, cols, "next_delivery"),
                                sql.rows().instant(rs, cols, "db_now")))))
                .orElseThrow(() -> new IllegalStateException("feature_next_times returned no row"));
    }

    @Override
    public long churn() {
        return claims.churn();
    }

    @Override
    public String hotTableUpkeep(long minDead) {
        return sql.run(c -> sql.dialect().hotTableUpkeep(c, minDead), true);
    }

    @Override
    public void settingsPut(java.util.Map<String, String> settings) {
        sql.tx(c -> {
            for (var e : new java.util.TreeMap<>(settings).entrySet()) {
                sql.execute(c, Stmt.SETTING_PUT, Params.of().str("name", e.getKey()).str("value", e.getValue()));
            }
            return null;
        });
    }
}
