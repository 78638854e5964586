package io.readpast.api.leases;

import io.readpast.api.http.JobBodies;
import io.readpast.api.http.ProblemMappers;
import io.readpast.api.http.Requests;
import io.readpast.api.http.Responses;
import io.readpast.api.http.Validate;
import io.readpast.http.Problem;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.readpast.core.Leases;
import io.readpast.core.BrokerException;
import io.readpast.store.CompleteItem;

import java.util.ArrayList;
import java.util.List;

/**
 * The acknowledgements of an ack-and-claim ({@code POST /claim} with {@code ack}): each item is
 * parsed and checked on its own, as for {@code POST /jobs/complete}, so that a bad item fails
 * only itself; the answers come back in item order.
 */
final class AckItems {

    private final Responses.ItemResult[] results;
    private final List<Integer> validIndex = new ArrayList<>();
    private final List<CompleteItem> valid = new ArrayList<>();

    private AckItems(int size) {
        this.results = new Responses.ItemResult[size];
    }

    /** Parses the items; null or empty means no acknowledgements. */
    static AckItems parse(List<JsonNode> items, ObjectMapper mapper, int payloadMaxBytes) {
        AckItems out = new AckItems(items == null ? 0 : items.size());
        for (int i = 0; i < out.results.length; i++) {
            JsonNode node = items.get(i);
            try {
                if (node == null || !node.isObject()) {
                    throw BrokerException.invalid("Each ack item must be a JSON object.");
                }
                Requests.CompleteItem item = mapper.treeToValue(node, Requests.CompleteItem.class);
                long id = Validate.jobId(item.id() == null ? "" : item.id());
                String lease = Validate.leaseId(item.leaseId());
                String result = item.result() == null || item.result().isNull() ? null
                        : resultText(item.result(), payloadMaxBytes);
                out.valid.add(new CompleteItem(id, lease, result));
                out.validIndex.add(i);
            } catch (BrokerException e) {
                out.results[i] = new Responses.ItemResult(i, null, ProblemMappers.status(e), null,
                        ProblemMappers.problem(e));
            } catch (JsonProcessingException e) {
                out.results[i] = new Responses.ItemResult(i, null, 400, null, new Problem(
                        "urn:readpast:problem:malformed-json", "Malformed item", 400, ProblemMappers.describe(e), null));
            }
        }
        return out;
    }

    private static String resultText(JsonNode result, int max) {
        return JobBodies.jsonText("result", result, max);
    }

    /**
     * Answers the items of these jobs as missing (404) and leaves them out of the broker's work:
     * for a queue-scoped key, the jobs outside its scope ({@link JobBodies#outOfScope}).
     */
    void withhold(java.util.Set<Long> ids) {
        if (ids.isEmpty()) {
            return;
        }
        for (int k = valid.size() - 1; k >= 0; k--) {
            long id = valid.get(k).id();
            if (ids.contains(id)) {
                int i = validIndex.get(k);
                BrokerException e = BrokerException.jobNotFound(id);
                results[i] = new Responses.ItemResult(i, Long.toString(id), ProblemMappers.status(e), null,
                        ProblemMappers.problem(e));
                valid.remove(k);
                validIndex.remove(k);
            }
        }
    }

    /** The items that passed the checks, for the broker. */
    List<CompleteItem> valid() {
        return valid;
    }

    /** All answers in item order: the broker's for the valid items, the refusals for the others. */
    List<Responses.ItemResult> answers(List<Leases.Completion> done) {
        for (int k = 0; k < done.size(); k++) {
            Leases.Completion c = done.get(k);
            int i = validIndex.get(k);
            results[i] = c.error() == null
                    ? new Responses.ItemResult(i, Long.toString(c.id()), 200, null, null)
                    : new Responses.ItemResult(i, Long.toString(c.id()), ProblemMappers.status(c.error()), null,
                            ProblemMappers.problem(c.error()));
        }
        return List.of(results);
    }
}
