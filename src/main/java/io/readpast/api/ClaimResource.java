package io.readpast.api;

import io.readpast.config.ReadpastConfig;
import io.readpast.core.LongPollClaims;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.readpast.core.BrokerException;
import io.readpast.security.Allowed;
import io.readpast.security.Caller;
import io.readpast.security.Role;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Workers lease batches of jobs. */
@Path("/claim")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class ClaimResource {

    private final ReadpastConfig config;
    private final Caller caller;
    private final LongPollClaims claims;

    public ClaimResource(ReadpastConfig config, Caller caller, LongPollClaims claims) {
        this.config = config;
        this.caller = caller;
        this.claims = claims;
    }

    @POST
    @RunOnVirtualThread
    @Allowed(Role.WORKER)
    @Tag(name = "Workers")
    @Operation(summary = "Lease up to 'limit' claimable jobs",
            description = "Skips rows other claims hold; honours priority, due time, paused queues and maxWorkers. "
                    + "Each job comes with a fresh leaseId; {\"jobs\": []} when nothing is claimable.")
    public Responses.Claimed claim(Requests.Claim body) {
        Requests.Claim b = Validate.body(body);
        String workerId = Validate.text("workerId", b.workerId(), Validate.NAME_MAX, true);
        int limit = Validate.range("limit", b.limit(), 1, 1, config.limits().claimMax());
        Integer lease = Validate.optionalRange("leaseSeconds", b.leaseSeconds(),
                config.limits().leaseMinSeconds(), config.limits().leaseMaxSeconds());
        var queues = Validate.queueList("queues", b.queues());
        var scope = caller.queueScope();
        if (scope != null) {
            // a queue-scoped key claims only from its queues: all of them by default
            if (queues == null) {
                queues = List.copyOf(scope);
            }
            for (String q : queues) {
                if (!scope.contains(q)) {
                    throw BrokerException.forbiddenQueue(q);
                }
            }
        }
        int wait = Validate.range("waitSeconds", b.waitSeconds(), 0, 0, 30);
        return new Responses.Claimed(claims.claim(workerId, queues, limit, lease, caller.name(), wait).stream()
                .map(JobView::withLease).toList());
    }
}
