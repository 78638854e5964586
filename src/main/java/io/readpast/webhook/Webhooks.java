package io.readpast.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.BrokerException;
import io.readpast.store.Database;
import io.readpast.store.JobStore;
import io.readpast.store.StoreException;
import io.readpast.store.WebhookRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Completion webhooks: the sender every instance runs (when READPAST_WEBHOOK_SECRET is set),
 * retention of finished deliveries, and what operators can see and do (list, read, retry).
 */
@ApplicationScoped
public class Webhooks {

    private static final Logger LOG = Logger.getLogger(Webhooks.class);

    private final Database database;
    private final ReadpastConfig config;
    private final ObjectMapper mapper;
    private volatile WebhookSender sender;

    public Webhooks(Database database, ReadpastConfig config, ObjectMapper mapper) {
        this.database = database;
        this.config = config;
        this.mapper = mapper;
    }

    @Scheduled(every = "${readpast.webhooks.interval:1s}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void send() {
        if (!database.started() || config.webhooks().secret().isEmpty()) {
            return;
        }
        try {
            sender().runOnce();
        } catch (StoreException e) {
            LOG.warnf("Webhook sender skipped a round: %s", e.getMessage());
        }
    }

    @Scheduled(every = "${readpast.retention.interval:60s}", delayed = "9s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void purge() {
        if (!database.started()) {
            return;
        }
        try {
            purgeOnce();
        } catch (StoreException e) {
            LOG.warnf("Webhook deliveries were not purged this time: %s", e.getMessage());
        }
    }

    /** Deletes delivered and dead deliveries past their retention; returns how many. */
    public int purgeOnce() {
        JobStore store = database.start();
        int batch = Math.max(1, config.retention().batch());
        int total = 0;
        int n;
        do {
            n = store.webhookPurgeOld(config.webhooks().deliveredRetention().toMillis(),
                    config.webhooks().deadRetention().toMillis(), batch);
            total += n;
        } while (n > 0 && n >= batch);
        return total;
    }

    /** A sender configured like the one this instance runs (tests race several of them). */
    public WebhookSender newSender() {
        ReadpastConfig.Webhooks w = config.webhooks();
        byte[] secret = w.secret().orElseThrow(() -> new IllegalStateException("READPAST_WEBHOOK_SECRET is not set"))
                .getBytes(StandardCharsets.UTF_8);
        return new WebhookSender(database.start(), secret, new WebhookSender.Settings(w.batch(), w.maxAttempts(),
                w.backoffBase(), w.backoffCap(), w.timeout(), w.leaseSeconds()), mapper,
                host -> WebhookUrls.hostAllowed(host, w));
    }

    private WebhookSender sender() {
        WebhookSender s = sender;
        if (s == null) {
            synchronized (this) {
                s = sender;
                if (s == null) {
                    s = newSender();
                    sender = s;
                }
            }
        }
        return s;
    }

    void onStop(@Observes ShutdownEvent event) {
        WebhookSender s = sender;
        if (s != null) {
            s.close();
        }
    }

    public List<WebhookRow> list(Integer status, Long after, int limit) {
        return database.start().webhookList(status, after, limit);
    }

    public WebhookRow get(String deliveryId) {
        return database.start().webhookGet(deliveryId).orElseThrow(() -> notFound(deliveryId));
    }

    /** A DEAD delivery is sent again (same delivery id, attempts from zero); 409 for any other status. */
    public WebhookRow retry(String deliveryId, String by) {
        JobStore store = database.start();
        return store.webhookRetry(deliveryId).map(r -> {
            LOG.infof("Webhook delivery %s (job %d) retried by %s", deliveryId, r.jobId(), by == null ? "anonymous" : by);
            return r;
        }).orElseThrow(() -> {
            WebhookRow r = get(deliveryId);
            return new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Delivery " + deliveryId + " is "
                    + status(r.status()) + "; only DEAD deliveries can be retried.");
        });
    }

    public static String status(int code) {
        return switch (code) {
            case WebhookRow.PENDING -> "PENDING";
            case WebhookRow.SENDING -> "SENDING";
            case WebhookRow.DELIVERED -> "DELIVERED";
            case WebhookRow.DEAD -> "DEAD";
            default -> "UNKNOWN";
        };
    }

    private static BrokerException notFound(String id) {
        return new BrokerException(BrokerException.Kind.NOT_FOUND, "No webhook delivery with id '" + id + "'.");
    }
}
