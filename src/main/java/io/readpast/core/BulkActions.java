package io.readpast.core;

import io.readpast.store.JobFilter;
import io.readpast.store.JobRow;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One action on every job a filter matches (the filter of GET /jobs), newest first: requeue,
 * cancel or delete. Each job is changed by the single-job statement of that action, in its own
 * short transaction, so a bulk action holds no lock over many rows and a claim is never blocked
 * by more than one job's statement; a job that changed state under it (a worker claimed it, it
 * finished) is counted as skipped, not waited for. A call stops after the filter's {@code limit}
 * matched jobs and answers the cursor to continue from.
 */
@ApplicationScoped
public class BulkActions {

    private static final Logger LOG = Logger.getLogger(BulkActions.class);
    /** Jobs read per page of the scan. */
    static final int PAGE = 100;

    public enum Action {
        REQUEUE(EnumSet.of(JobStatus.DEAD, JobStatus.CANCELLED)),
        CANCEL(EnumSet.of(JobStatus.PENDING, JobStatus.WAITING, JobStatus.LEASED, JobStatus.PROCESSING)),
        DELETE(EnumSet.of(JobStatus.SUCCEEDED, JobStatus.DEAD, JobStatus.CANCELLED));

        private final Set<JobStatus> appliesTo;

        Action(Set<JobStatus> appliesTo) {
            this.appliesTo = appliesTo;
        }

        /** The statuses this action changes; a matched job in another one is not eligible. */
        public Set<JobStatus> appliesTo() {
            return appliesTo;
        }
    }

    /**
     * What a call did: {@code matched} jobs the filter matched (at most the limit),
     * {@code eligible} those in a status the action applies to, {@code changed} those it changed
     * (0 in a dry run), {@code skipped} eligible ones that changed state meanwhile or are held
     * right now; {@code next} the cursor to pass as {@code after} to go on, null when the scan
     * reached the oldest job.
     */
    public record Result(int matched, int eligible, int changed, int skipped, Long next) {
    }

    private final Operations operations;

    public BulkActions(Operations operations) {
        this.operations = operations;
    }

    /** {@code requeue} says what a requeue changes besides the status (requeue only). */
    public Result run(Action action, JobFilter filter, boolean dryRun, Operations.Requeue requeue, String by) {
        int limit = filter.limit();
        int matched = 0;
        int eligible = 0;
        int changed = 0;
        int skipped = 0;
        Long cursor = filter.after();
        boolean more = true;
        while (more && matched < limit) {
            int size = Math.min(PAGE, limit - matched);
            List<JobRow> page = operations.list(filter.page(cursor, size));
            more = page.size() == size;
            for (JobRow job : page) {
                matched++;
                cursor = job.id();
                if (!action.appliesTo().contains(JobStatus.of(job))) {
                    continue;
                }
                eligible++;
                if (dryRun) {
                    continue;
                }
                if (apply(action, job.id(), requeue, by)) {
                    changed++;
                } else {
                    skipped++;
                }
            }
        }
        Result result = new Result(matched, eligible, changed, skipped, more ? cursor : null);
        if (!dryRun) {
            LOG.infof("Bulk %s by %s, filter %s: matched %d, eligible %d, changed %d, skipped %d%s",
                    action.name().toLowerCase(java.util.Locale.ROOT), Audit.who(by), describe(filter), matched, eligible,
                    changed, skipped, more ? ", more after job " + cursor : "");
        }
        return result;
    }

    private boolean apply(Action action, long id, Operations.Requeue requeue, String by) {
        try {
            switch (action) {
                case REQUEUE -> operations.requeue(id, requeue, by, true);
                case CANCEL -> operations.cancel(id, by, true);
                case DELETE -> operations.purge(id, by, true);
                default -> throw new IllegalStateException(action.name());
            }
            return true;
        } catch (BrokerException e) {
            if (e.kind() == BrokerException.Kind.STATE_CONFLICT || e.kind() == BrokerException.Kind.NOT_FOUND) {
                // claimed, finished, requeued or deleted by someone else since the scan read it
                return false;
            }
            throw e;
        }
    }

    /** The filter's given fields, for the audit line. */
    static String describe(JobFilter f) {
        StringBuilder s = new StringBuilder("{");
        add(s, "queue", f.queue());
        add(s, "type", f.type());
        add(s, "statuses", f.statuses());
        add(s, "tag", f.tag());
        add(s, "fairnessKey", f.fairnessKey());
        add(s, "groupKey", f.groupKey());
        add(s, "batch", f.batchId());
        add(s, "error", f.error());
        add(s, "createdAfter", f.createdAfter());
        add(s, "createdBefore", f.createdBefore());
        add(s, "finishedAfter", f.finishedAfter());
        add(s, "finishedBefore", f.finishedBefore());
        add(s, "payload", f.payload());
        add(s, "after", f.after());
        return s.append('}').toString();
    }

    private static void add(StringBuilder s, String name, Object value) {
        if (value != null) {
            if (s.length() > 1) {
                s.append(", ");
            }
            s.append(name).append('=').append(value);
        }
    }
}
