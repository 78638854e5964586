import org.openapitools.client.ApiClient;
import org.openapitools.client.api.KeysApi;
import org.openapitools.client.api.ProducersApi;
import org.openapitools.client.api.QueuesApi;
import org.openapitools.client.api.WorkersApi;
import org.openapitools.client.model.Claim;
import org.openapitools.client.model.Claimed;
import org.openapitools.client.model.Complete;
import org.openapitools.client.model.CreateKey;
import org.openapitools.client.model.Enqueue;
import org.openapitools.client.model.Heartbeat;
import org.openapitools.client.model.JobView;
import org.openapitools.client.model.Queue;
import org.openapitools.client.model.QueueView;

import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Drives the Java (native) client generated from openapi/ (scripts/generated-clients.sh):
 * enqueue with runAt, claim from every queue, complete, read back; queue settings and a key.
 */
public class Check {

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("check failed: " + what);
        }
    }

    public static void main(String[] args) throws Exception {
        URI url = URI.create(System.getenv("READPAST_URL"));
        String key = System.getenv("READPAST_API_KEY");
        ApiClient client = new ApiClient();
        client.updateBaseUri(url.toString());
        client.setRequestInterceptor(b -> b.header("Authorization", "Bearer " + key));
        ProducersApi producers = new ProducersApi(client);
        WorkersApi workers = new WorkersApi(client);
        List<String> mine = List.of("gen-java-a", "gen-java-b");
        OffsetDateTime due = OffsetDateTime.now(ZoneOffset.UTC).minusSeconds(1);
        OffsetDateTime soon = OffsetDateTime.now(ZoneOffset.UTC).plusNanos(1_500_000_000L);
        JobView a = producers.enqueueJob(new Enqueue().queue(mine.get(0)).type("greet").payload(Map.of("n", 1)).runAt(due), null,
                null, null);
        JobView b = producers.enqueueJob(new Enqueue().queue(mine.get(1)).type("greet").runAt(soon).tags(List.of("gen")), null,
                null, null);
        check(a.getId() != null && b.getId() != null, "enqueued");
        QueueView settings = new QueuesApi(client).setQueue(mine.get(0), new Queue().maxWorkers(5));
        check(Integer.valueOf(5).equals(settings.getMaxWorkers()) && Boolean.FALSE.equals(settings.getPaused()),
                "queue settings set, the rest left at defaults");
        KeysApi keys = new KeysApi(client);
        check(keys.createKey(new CreateKey().name("gen-java-worker").roles(List.of(CreateKey.RolesEnum.WORKER)))
                .getKey().startsWith("rp_"), "key made without queues");
        keys.deleteKey("gen-java-worker");

        Set<String> done = new HashSet<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (done.size() < 2 && System.nanoTime() < deadline) {
            // no queues: every queue
            Claimed claimed = workers.claimJobs(new Claim().workerId("gen-java").limit(10).waitSeconds(2));
            for (JobView j : claimed.getJobs()) {
                // the worker's loop: a heartbeat while working, then complete
                check(workers.heartbeatJob(j.getId(), new Heartbeat().leaseId(j.getLeaseId()).leaseSeconds(30))
                        .getLeaseExpiresAt() != null, "heartbeat extends the lease");
                workers.completeJob(j.getId(), new Complete().leaseId(j.getLeaseId()).result(Map.of("ok", true)));
                if (mine.contains(j.getQueue())) {
                    done.add(j.getId());
                }
            }
        }
        check(done.contains(a.getId()) && done.contains(b.getId()), "both jobs claimed from every queue and completed");
        JobView read = producers.getJob(b.getId());
        check("SUCCEEDED".equals(String.valueOf(read.getStatus())), "succeeded: " + read.getStatus());
        check(Math.abs(Duration.between(read.getRunAt().toInstant(), soon.toInstant()).toMillis()) < 1000,
                "runAt kept: " + read.getRunAt());
        System.out.println("PASS java");
    }
}
