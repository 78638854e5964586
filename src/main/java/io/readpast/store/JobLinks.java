package io.readpast.store;

import java.util.List;

/**
 * What ties a new job to others: the batch it joins ({@code batchId}, null: none) and the
 * parents it waits for ({@code parentJobs}, {@code parentBatches}: dependsOn). A parent that ends
 * DEAD or CANCELLED cancels the job, unless {@code runOnParentFailure}: then it counts as settled.
 */
public record JobLinks(Long batchId, List<Long> parentJobs, List<Long> parentBatches, boolean runOnParentFailure) {

    public static final JobLinks NONE = new JobLinks(null, List.of(), List.of(), false);

    public JobLinks {
        parentJobs = List.copyOf(parentJobs);
        parentBatches = List.copyOf(parentBatches);
    }

    public boolean hasParents() {
        return !parentJobs.isEmpty() || !parentBatches.isEmpty();
    }

    public JobLinks inBatch(long batch) {
        return new JobLinks(batch, parentJobs, parentBatches, runOnParentFailure);
    }
}
