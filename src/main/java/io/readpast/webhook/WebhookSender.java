package io.readpast.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.readpast.core.RetryPolicy;
import io.readpast.store.JobRow;
import io.readpast.store.JobStore;
import io.readpast.store.WebhookFailure;
import io.readpast.store.WebhookStore;
import io.readpast.store.StoreException;
import io.readpast.store.WebhookRow;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;

/**
 * Sends webhook deliveries from the outbox. One round leases up to {@code batch} due rows (rows
 * other senders hold are skipped), POSTs them in parallel, and records each outcome under its
 * lease: 2xx is DELIVERED; anything else is retried after an exponential backoff, and DEAD once
 * the attempts are used up (or at once on 410 Gone). A sender that dies mid-send leaves its rows
 * leased; when the lease expires another sender sends them again, with the same delivery id:
 * delivery is at least once, and receivers drop repeats by the {@code Readpast-Delivery} header.
 */
public final class WebhookSender implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(WebhookSender.class);
    public static final String DELIVERY_HEADER = "Readpast-Delivery";
    public static final String EVENT_HEADER = "Readpast-Event";
    public static final String ATTEMPT_HEADER = "Readpast-Attempt";

    /** How a sender works; see README "Webhooks". */
    public record Settings(int batch, int maxAttempts, Duration backoffBase, Duration backoffCap, Duration timeout,
                           int leaseSeconds) {
    }

    private final WebhookStore store;
    private final JobStore jobs;
    private final JobDocuments documents;
    private final byte[] secret;
    private final Settings settings;
    private final ObjectMapper mapper;
    private final Predicate<String> hostAllowed;
    private final HttpClient client;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    public WebhookSender(WebhookStore store, JobStore jobs, JobDocuments documents, byte[] secret, Settings settings,
                         ObjectMapper mapper, Predicate<String> hostAllowed) {
        this.store = store;
        this.jobs = jobs;
        this.documents = documents;
        this.secret = secret.clone();
        this.settings = settings;
        this.mapper = mapper;
        this.hostAllowed = hostAllowed;
        this.client = HttpClient.newBuilder()
                .connectTimeout(settings.timeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .version(HttpClient.Version.HTTP_1_1)
                .executor(executor)
                .build();
    }

    /** What a run did: deliveries delivered, and when the earliest retry it scheduled is due (or null). */
    public record Run(int delivered, Instant nextAttempt) {
    }

    /** Sends every due delivery, round after round; returns how many were delivered. */
    public int runOnce() {
        return run().delivered();
    }

    /** Sends every due delivery, round after round. */
    public Run run() {
        int delivered = 0;
        Instant next = null;
        while (true) {
            List<WebhookRow> rows = store.webhookClaim(Math.max(1, settings.batch()), settings.leaseSeconds());
            if (rows.isEmpty()) {
                return new Run(delivered, next);
            }
            List<Future<Outcome>> sends = new ArrayList<>(rows.size());
            for (WebhookRow r : rows) {
                sends.add(executor.submit(() -> deliver(r)));
            }
            for (Future<Outcome> f : sends) {
                try {
                    Outcome o = f.get();
                    delivered += o.delivered() ? 1 : 0;
                    if (o.retryAt() != null && (next == null || o.retryAt().isBefore(next))) {
                        next = o.retryAt();
                    }
                } catch (ExecutionException e) {
                    LOG.warnf("A webhook delivery failed unexpectedly: %s", e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new Run(delivered, next);
                }
            }
            if (rows.size() < settings.batch()) {
                return new Run(delivered, next);
            }
        }
    }

    /** One attempt's outcome: delivered, or when its retry is due (database clock; null: none). */
    record Outcome(boolean delivered, Instant retryAt) {
        static final Outcome DELIVERED = new Outcome(true, null);
        static final Outcome NOT_SENT = new Outcome(false, null);
    }

    /**
     * One attempt at one leased delivery. Every failure counts as the attempt it is: it is
     * recorded and retried, and the delivery is DEAD at the last attempt, whatever went wrong.
     */
    Outcome deliver(WebhookRow r) {
        try {
            return attempt(r);
        } catch (RuntimeException e) {
            return failed(r, null, "could not be sent: " + e, false);
        }
    }

    private Outcome attempt(WebhookRow r) {
        if (r.attempt() > settings.maxAttempts()) {
            // a sender died mid-send with the last attempt: the claim after its lease ran out
            // counted one more, which is never sent
            return failed(r, null, "its last attempt's sender stopped before it answered", true);
        }
        byte[] body;
        URI uri;
        try {
            body = body(r);
            uri = URI.create(r.url());
        } catch (StoreException e) {
            // the database is away: the lease runs out and the delivery is sent later
            LOG.debugf("Webhook %s not sent: %s", r.deliveryId(), e.getMessage());
            return Outcome.NOT_SENT;
        } catch (IllegalArgumentException e) {
            return failed(r, null, "not a valid URL", true);
        }
        if (uri.getHost() == null || !hostAllowed.test(uri.getHost())) {
            return failed(r, null, "host not allowed by READPAST_WEBHOOK_ALLOWED_HOSTS", true);
        }
        long now = Instant.now().getEpochSecond();
        HttpRequest request;
        try {
            request = buildRequest(r, uri, now, body);
        } catch (IllegalArgumentException e) {
            // a URL the HTTP client refuses (an older row, from before the URL checks)
            return failed(r, null, "not a URL the HTTP client can use: " + e.getMessage(), true);
        }
        int status;
        try {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            status = response.statusCode();
            try (InputStream in = response.body()) {
                // the answer's body is not needed; closing it drops the rest
            }
        } catch (IllegalArgumentException e) {
            // the client refuses the URL itself (a port out of range): no retry will change that
            return failed(r, null, "not a URL the HTTP client can use: " + e.getMessage(), true);
        } catch (HttpTimeoutException e) {
            return failed(r, null, "no answer within " + settings.timeout().toMillis() + " ms", false);
        } catch (IOException e) {
            return failed(r, null, "POST failed: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()), false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.NOT_SENT;
        }
        if (status >= 200 && status < 300) {
            try {
                if (!store.webhookDelivered(r.seq(), r.leaseId(), status)) {
                    LOG.debugf("Webhook %s was delivered after its lease ran out; it may be sent again",
                            r.deliveryId());
                }
            } catch (StoreException e) {
                LOG.warnf("Webhook %s was delivered but could not be recorded (%s); it will be sent again",
                        r.deliveryId(), e.getMessage());
            }
            return Outcome.DELIVERED;
        }
        return failed(r, status, "HTTP " + status, status == 410);
    }

    private HttpRequest buildRequest(WebhookRow r, URI uri, long now, byte[] body) {
        return HttpRequest.newBuilder(uri)
                .timeout(settings.timeout())
                .header("Content-Type", "application/json")
                .header("User-Agent", "Readpast-Webhook")
                .header(DELIVERY_HEADER, r.deliveryId())
                .header(EVENT_HEADER, r.event())
                .header(ATTEMPT_HEADER, Integer.toString(r.attempt()))
                .header(WebhookSignature.HEADER, WebhookSignature.header(secret, now, body))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
    }

    private Outcome failed(WebhookRow r, Integer status, String error, boolean fatal) {
        boolean dead = fatal || r.attempt() >= settings.maxAttempts();
        long delay = dead ? 0 : RetryPolicy.delayMs(r.attempt(), settings.backoffBase(), settings.backoffCap());
        try {
            Optional<Instant> retryAt = store.webhookFailed(new WebhookFailure(r.seq(), r.leaseId(), status,
                    error.length() > 1000 ? error.substring(0, 1000) : error, delay, dead));
            if (dead) {
                LOG.warnf("Webhook %s for job %d (%s) is DEAD after %d attempts: %s", r.deliveryId(), r.jobId(),
                        r.event(), r.attempt(), error);
                return Outcome.NOT_SENT;
            }
            return new Outcome(false, retryAt.orElse(null));
        } catch (StoreException e) {
            LOG.warnf("Webhook %s failed (%s) and could not be recorded: %s", r.deliveryId(), error, e.getMessage());
            return Outcome.NOT_SENT;
        }
    }

    /** The delivery's body: see {@link WebhookPayload}. */
    byte[] body(WebhookRow r) {
        WebhookPayload body;
        if (WebhookPayload.BATCH_FIRED.equals(r.event())) {
            Object batch = documents.ofBatch(r.jobId());
            body = new WebhookPayload(r.deliveryId(), r.event(), r.attempt(), r.createdAt(), null,
                    batch != null ? batch : java.util.Map.of("id", Long.toString(r.jobId())));
        } else {
            Optional<JobRow> job = jobs.jobGet(r.jobId());
            body = new WebhookPayload(r.deliveryId(), r.event(), r.attempt(), r.createdAt(),
                    job.isPresent() ? documents.of(job.get()) : WebhookPayload.deletedJob(r.jobId(), r.queue(), r.event()),
                    null);
        }
        try {
            return mapper.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
