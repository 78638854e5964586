package io.readpast.store.jdbc;

import io.readpast.store.Params;
import io.readpast.store.Stmt;
import io.readpast.store.WebhookFailure;
import io.readpast.store.WebhookRow;
import io.readpast.store.WebhookStore;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static io.readpast.store.jdbc.SqlRunner.single;

/** {@link WebhookStore} on the engine's named statements. */
final class JdbcWebhookStore implements WebhookStore {

    private final SqlRunner sql;

    JdbcWebhookStore(SqlRunner sql) {
        this.sql = sql;
    }

    @Override
    public List<WebhookRow> webhookClaim(int limit, int leaseSeconds) {
        Params p = Params.of().integer("limit", limit).integer("lease_seconds", leaseSeconds);
        return sql.oneStatement(c -> sql.query(c, Stmt.WEBHOOK_CLAIM, p, sql.rows()::webhook));
    }

    @Override
    public boolean webhookDelivered(long seq, String leaseId, int statusCode) {
        Params p = Params.of().lng("id", seq).str("lease_id", leaseId).integer("status_code", statusCode);
        return sql.oneStatement(c -> sql.execute(c, Stmt.WEBHOOK_DELIVERED, p));
    }

    @Override
    public Optional<Instant> webhookFailed(WebhookFailure f) {
        Params p = Params.of().lng("id", f.seq()).str("lease_id", f.leaseId()).integer("status_code", f.statusCode())
                .str("error", f.error()).lng("delay_ms", f.delayMs()).bool("dead", f.dead());
        return sql.oneStatement(c -> single(sql.query(c, Stmt.WEBHOOK_FAILED, p,
                (rs, cols) -> sql.rows().instant(rs, cols, "due_at"))));
    }

    @Override
    public List<WebhookRow> webhookList(Integer status, Long after, int limit) {
        Params p = Params.of().integer("status", status).lng("after", after).integer("limit", limit);
        return sql.oneStatement(c -> sql.query(c, Stmt.WEBHOOK_LIST, p, sql.rows()::webhook));
    }

    @Override
    public Optional<WebhookRow> webhookGet(String deliveryId) {
        return byDelivery(Stmt.WEBHOOK_GET, deliveryId);
    }

    @Override
    public Optional<WebhookRow> webhookRetry(String deliveryId) {
        return byDelivery(Stmt.WEBHOOK_RETRY, deliveryId);
    }

    private Optional<WebhookRow> byDelivery(Stmt stmt, String deliveryId) {
        return sql.oneStatement(c -> single(sql.query(c, stmt, Params.of().str("delivery_id", deliveryId),
                sql.rows()::webhook)));
    }
}
