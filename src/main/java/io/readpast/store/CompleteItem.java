package io.readpast.store;

/** One acknowledgement of a batch completion; {@code result} is JSON text or null. */
public record CompleteItem(long id, String leaseId, String result) {
}
