package io.readpast.store;

import java.util.List;
import java.util.Optional;

/**
 * Batches and dependencies (docs/batches.md). Every change runs in one transaction, and
 * refuses with {@link LinkRefused} having changed nothing. Settling (a batch's counts, its
 * callback, the release or cancel of waiting jobs) happens in the transaction of the move that
 * finishes a job, whichever statement moves it: see the job store.
 */
public interface BatchStore {

    /** A batch and the jobs added with it. */
    record Change(BatchRow batch, List<JobRow> jobs) {
    }

    /** Creates a batch with its first jobs ({@code links.get(k)} ties {@code jobs.get(k)}; its batch is set here). */
    Change batchCreate(NewBatch batch, List<NewJob> jobs, List<JobLinks> links);

    /** Adds jobs to an open batch; NOT_FOUND, or CONFLICT when it is closed. */
    Change batchAdd(long id, List<NewJob> jobs, List<JobLinks> links, List<String> queues);

    /** Closes an open batch (it may finish, and fire, at once); NOT_FOUND, or CONFLICT when closed already. */
    BatchRow batchClose(long id);

    /**
     * Cancels a batch: it is closed and marked cancelled; its jobs nobody holds become
     * CANCELLED, those at work get cancel requested. Empty when there is no such batch.
     */
    Optional<BatchRow> batchCancel(long id, String by);

    /** A batch with its live counts. */
    Optional<BatchRow> batchGet(long id);

    /** Batches newest first, after {@code after} (null: from the newest). */
    List<BatchRow> batchList(Long after, int limit);

    /**
     * Inserts jobs that name parents (and no batch), in one transaction: each waits until its
     * parents have settled. UNKNOWN for an id that is no job or batch; CONFLICT when a parent
     * has already failed and the job would be cancelled at once.
     */
    List<JobRow> jobInsertLinked(List<NewJob> jobs, List<JobLinks> links);

    /** One dependency edge: parent kind 'j' (job) or 'b' (batch); outcome null while unsettled. */
    record Edge(char parentKind, long parentId, long childId, Integer outcome) {
    }

    /** The parents of job {@code child} (null: none) and the children of parent {@code kind}/{@code parent}. */
    List<Edge> edges(Long child, char kind, long parent, int limit);
}
