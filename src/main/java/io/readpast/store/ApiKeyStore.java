package io.readpast.store;

import java.util.List;

/** Stored API keys (digests only; the keys themselves are never stored). */
public interface ApiKeyStore {

    List<StoredKey> apiKeyList();

    /** Stores a key unless one of that name exists; true when this call stored it. */
    boolean apiKeyInsert(StoredKey key);

    /** Deletes a stored key; false when there was none of that name. */
    boolean apiKeyDelete(String name);
}
