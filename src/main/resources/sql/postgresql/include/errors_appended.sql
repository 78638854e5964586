-- A template (StatementCatalog): the errors of a job (slot of: the relation whose row it is,
-- the hot table or the moved rows) with :error (slot error) appended, as an entry with the attempt, the time
-- (database clock) and the worker, keeping the last :keep_errors entries: a JSON array, as text.
(
    SELECT CAST(jsonb_agg(e.entry ORDER BY e.n) AS text)
    FROM jsonb_array_elements(
        COALESCE(CAST({{of}}.errors AS jsonb), CAST('[]' AS jsonb))
        || jsonb_build_array(jsonb_build_object(
            'attempt', {{of}}.attempt,
            'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
            'workerId', {{of}}.worker_id,
            'error', {{error|CAST(:error AS text)}}))
    ) WITH ORDINALITY AS e(entry, n)
    WHERE e.n > jsonb_array_length(COALESCE(CAST({{of}}.errors AS jsonb), CAST('[]' AS jsonb)))
          + 1 - CAST(:keep_errors AS integer)
)
