package io.readpast.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.ShutdownEvent;
import io.readpast.core.FinishedJobs;
import io.readpast.core.TimersTask;
import io.readpast.config.ReadpastConfig;
import io.readpast.core.BrokerException;
import io.readpast.store.JobStore;
import io.readpast.store.StoreReady;
import io.readpast.store.WebhookRow;
import io.readpast.store.WebhookStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Completion webhooks: the sender every instance runs (when READPAST_WEBHOOK_SECRET is set), and
 * what operators can see and do (list, read, retry). The {@link TimersTask} runs the sender
 * when deliveries come due (new ones, retries, and those a dead instance had leased, once their
 * lease runs out) and at once when jobs finish on this instance.
 * Retention of finished deliveries is {@link io.readpast.core.HousekeepingTask}'s.
 */
@ApplicationScoped
public class Webhooks {

    private static final Logger LOG = Logger.getLogger(Webhooks.class);

    private final WebhookStore store;
    private final JobStore jobs;
    private final JobDocuments documents;
    private final ReadpastConfig config;
    private final ObjectMapper mapper;
    private final TimersTask timers;
    private final FinishedJobs finished;
    private volatile WebhookSender sender;

    public Webhooks(WebhookStore store, JobStore jobs, JobDocuments documents, ReadpastConfig config,
                    ObjectMapper mapper, TimersTask timers, FinishedJobs finished) {
        this.store = store;
        this.jobs = jobs;
        this.documents = documents;
        this.config = config;
        this.mapper = mapper;
        this.timers = timers;
        this.finished = finished;
    }

    void onStart(@Observes StoreReady ready) {
        if (config.webhooks().secret().isEmpty()) {
            return; // webhooks off: nothing to send
        }
        timers.deliveries(() -> sender().run());
        finished.listen(this::nudge);
    }

    /** Jobs finished here (or a test wants a look): send what is due at once. */
    public void nudge() {
        timers.wake();
    }

    /** A sender configured like the one this instance runs (tests race several of them). */
    public WebhookSender newSender() {
        ReadpastConfig.Webhooks w = config.webhooks();
        byte[] secret = w.secret().orElseThrow(() -> new IllegalStateException("READPAST_WEBHOOK_SECRET is not set"))
                .getBytes(StandardCharsets.UTF_8);
        return new WebhookSender(store, jobs, documents, secret, new WebhookSender.Settings(w.batch(), w.maxAttempts(),
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
        return store.webhookList(status, after, limit);
    }

    public WebhookRow get(String deliveryId) {
        return store.webhookGet(deliveryId).orElseThrow(() -> notFound(deliveryId));
    }

    /** A DEAD delivery is sent again (same delivery id, attempts from zero); 409 for any other status. */
    public WebhookRow retry(String deliveryId, String by) {
        return store.webhookRetry(deliveryId).map(r -> {
            LOG.infof("Webhook delivery %s (job %d) retried by %s", deliveryId, r.jobId(), by == null ? "anonymous" : by);
            nudge();
            return r;
        }).orElseThrow(() -> {
            WebhookRow r = get(deliveryId);
            return new BrokerException(BrokerException.Kind.STATE_CONFLICT, "Delivery " + deliveryId + " is "
                    + status(r.status()) + "; only DEAD deliveries can be retried.");
        });
    }

    /** The delivery statuses, each at the index of its stored code (as {@link #status} names them). */
    public static final List<String> STATUSES = List.of("PENDING", "SENDING", "DELIVERED", "DEAD");

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
