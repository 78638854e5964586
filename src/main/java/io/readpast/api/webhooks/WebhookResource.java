package io.readpast.api.webhooks;

import io.readpast.api.http.ApiDocs;
import io.readpast.api.http.FeatureDocs;
import io.readpast.api.http.Validate;
import io.readpast.http.Problem;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.readpast.core.BrokerException;
import io.readpast.config.ReadpastConfig;
import io.readpast.security.Caller;
import io.readpast.store.WebhookRow;
import io.readpast.webhook.Webhooks;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** Webhook deliveries (the outbox): browse them, read one, send a DEAD one again. Admin only. */
@Path("/webhooks/deliveries")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.WILDCARD)
public class WebhookResource {


    private final Webhooks webhooks;
    private final ReadpastConfig config;
    private final Caller caller;

    public WebhookResource(Webhooks webhooks, ReadpastConfig config, Caller caller) {
        this.webhooks = webhooks;
        this.config = config;
        this.caller = caller;
    }

    @JsonPropertyOrder({"id", "jobId", "queue", "event", "url", "status", "attempt", "nextAttemptAt", "lastStatus",
            "lastError", "createdAt", "updatedAt", "deliveredAt"})
    @Schema(description = "One webhook delivery: a job's SUCCEEDED or DEAD event, and how sending it stands.")
    public record DeliveryView(
            @Schema(description = "Delivery id, sent as Readpast-Delivery with every attempt (receivers drop repeats "
                    + "by it).", format = "uuid", examples = "6f1c2a4e-8b3d-4f5a-9c7e-0d1e2f3a4b5c")
            String id,
            @Schema(description = "The job (for batch.fired: the batch).", examples = "42")
            String jobId,
            @Schema(description = "The job's queue.", examples = "emails")
            String queue,
            @Schema(description = "job.succeeded, job.dead, or batch.fired (a batch's callback webhook).",
                    enumeration = {"job.succeeded", "job.dead", "batch.fired"},
                    examples = "job.succeeded")
            String event,
            @Schema(description = "Where it is POSTed.", examples = "https://shop.example/hooks/readpast")
            String url,
            @Schema(description = "PENDING (waiting for its next attempt), SENDING (an instance is sending it), "
                    + "DELIVERED (the receiver answered 2xx) or DEAD (attempts used up, or 410 Gone).",
                    enumeration = {"PENDING", "SENDING", "DELIVERED", "DEAD"}, examples = "DEAD")
            String status,
            @Schema(description = "Attempts made so far.", examples = "3")
            int attempt,
            @Schema(nullable = true, description = "When the next attempt is due (PENDING only).")
            Instant nextAttemptAt,
            @Schema(nullable = true, description = "HTTP status of the last answer; null when there was none.",
                    examples = "503")
            Integer lastStatus,
            @Schema(nullable = true, description = "Why the last attempt failed.", examples = "HTTP 503")
            String lastError,
            @Schema(description = "When the event happened (the job's change committed).")
            Instant createdAt,
            @Schema(description = "Last change.")
            Instant updatedAt,
            @Schema(nullable = true, description = "When the receiver accepted it.")
            Instant deliveredAt) {

        static DeliveryView of(WebhookRow r) {
            return new DeliveryView(r.deliveryId(), Long.toString(r.jobId()), r.queue(), r.event(), r.url(),
                    Webhooks.status(r.status()), r.attempt(), r.status() == WebhookRow.PENDING ? r.dueAt() : null,
                    r.lastStatus(), r.lastError(), r.createdAt(), r.updatedAt(), r.deliveredAt());
        }
    }

    @Schema(description = "A page of deliveries, newest first.")
    public record DeliveryPage(
            @Schema(description = "Up to 'limit' deliveries.")
            List<DeliveryView> deliveries,
            @Schema(nullable = true, description = "Pass as 'after' to get the following page; null when this page "
                    + "is the last.", examples = "1234")
            String next) {
    }

    @GET
    @Tag(name = "Webhooks")
    @Operation(operationId = "listWebhookDeliveries", summary = "List webhook deliveries, newest first",
            description = "Every SUCCEEDED or DEAD job whose job or queue names a webhookUrl has one delivery. Filter "
                    + "by status (DEAD: the ones that need attention). Keyset pagination: pass the previous page's "
                    + "'next' as 'after'." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "A page of deliveries.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = DeliveryPage.class),
                    examples = @ExampleObject(name = "dead", value = FeatureDocs.DELIVERY_PAGE)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public DeliveryPage list(
            @Parameter(description = "Only deliveries in this status: PENDING, SENDING, DELIVERED or DEAD.",
                    example = "DEAD")
            @QueryParam("status") String status,
            @Parameter(description = "Page size: 1 to readpast.limits.page-max (500 by default); default 50.",
                    schema = @Schema(type = SchemaType.INTEGER, minimum = "1", defaultValue = "50"), example = "50")
            @QueryParam("limit") String limit,
            @Parameter(description = "The 'next' value of the previous page; absent for the first page.",
                    example = "1234")
            @QueryParam("after") String after) {
        Integer code = null;
        if (status != null && !status.isEmpty()) {
            code = Webhooks.STATUSES.indexOf(status.strip().toUpperCase(Locale.ROOT));
            if (code < 0) {
                throw BrokerException.invalid("'status' takes PENDING, SENDING, DELIVERED or DEAD; got '"
                        + Validate.printable(status) + "'.");
            }
        }
        int pageSize = Validate.queryInt("limit", limit, 50, 1, config.limits().pageMax());
        List<WebhookRow> rows = webhooks.list(code, Validate.cursor(after), pageSize);
        String next = rows.size() < pageSize ? null : Long.toString(rows.get(rows.size() - 1).seq());
        return new DeliveryPage(rows.stream().map(DeliveryView::of).toList(), next);
    }

    @GET
    @Path("/{id}")
    @Tag(name = "Webhooks")
    @Operation(operationId = "getWebhookDelivery", summary = "Read a webhook delivery", description = "Its status, attempts and last error."
            + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The delivery.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = DeliveryView.class),
                    examples = @ExampleObject(name = "dead", value = FeatureDocs.DELIVERY_DEAD)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No delivery with this id.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = FeatureDocs.PROBLEM_DELIVERY_NOT_FOUND)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public DeliveryView get(@Parameter(description = FeatureDocs.DELIVERY_ID_PARAM,
            example = "6f1c2a4e-8b3d-4f5a-9c7e-0d1e2f3a4b5c") @PathParam("id") String id) {
        return DeliveryView.of(webhooks.get(deliveryId(id)));
    }

    @POST
    @Path("/{id}/retry")
    @Tag(name = "Webhooks")
    @Operation(operationId = "retryWebhookDelivery", summary = "Send a DEAD webhook delivery again",
            description = "The delivery becomes PENDING, due now, with its attempts counted from zero, and keeps its "
                    + "id (a receiver that got it before can drop it). No request body." + ApiDocs.ROLE_ADMIN)
    @APIResponse(responseCode = "200", description = "The delivery, PENDING.",
            content = @Content(mediaType = ApiDocs.JSON, schema = @Schema(implementation = DeliveryView.class),
                    examples = @ExampleObject(name = "pending", value = FeatureDocs.DELIVERY_PENDING)))
    @APIResponse(responseCode = "400", ref = ApiDocs.BAD_REQUEST)
    @APIResponse(responseCode = "401", ref = ApiDocs.UNAUTHORIZED)
    @APIResponse(responseCode = "403", ref = ApiDocs.FORBIDDEN)
    @APIResponse(responseCode = "404", description = "No delivery with this id.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notFound", value = FeatureDocs.PROBLEM_DELIVERY_NOT_FOUND)))
    @APIResponse(responseCode = "409", description = "The delivery is not DEAD.",
            content = @Content(mediaType = ApiDocs.PROBLEM, schema = @Schema(implementation = Problem.class),
                    examples = @ExampleObject(name = "notDead", value = FeatureDocs.PROBLEM_DELIVERY_CONFLICT)))
    @APIResponse(responseCode = "503", ref = ApiDocs.UNAVAILABLE)
    public DeliveryView retry(@Parameter(description = FeatureDocs.DELIVERY_ID_PARAM,
            example = "6f1c2a4e-8b3d-4f5a-9c7e-0d1e2f3a4b5c") @PathParam("id") String id) {
        return DeliveryView.of(webhooks.retry(deliveryId(id), caller.name()));
    }

    private static String deliveryId(String raw) {
        if (raw == null || !io.readpast.api.http.Validate.isUuidText(raw)) {
            throw BrokerException.invalid("A delivery id is the UUID sent as Readpast-Delivery; got '"
                    + Validate.printable(raw == null ? "" : raw) + "'.");
        }
        return raw.toLowerCase(Locale.ROOT);
    }
}
