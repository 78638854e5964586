-- One id from the job sequence per item of @item, handed out in item order (the k-th smallest
-- id to the k-th item): sp_sequence_get_range reserves one contiguous range of as many values
-- as there are items (the sequence counts by 1 and never cycles), documented for exactly this.
-- @new_id (n: the item's ord, id). Arguments by position: a named argument would read as a
-- statement parameter here.
DECLARE @new_id TABLE (
    n int NOT NULL PRIMARY KEY,
    id bigint NOT NULL
);
DECLARE @id_count bigint;
DECLARE @first_id sql_variant;
SELECT @id_count = COUNT_BIG(*) FROM @item;
IF @id_count > 0
BEGIN
    EXEC sp_sequence_get_range N'readpast_job_id', @id_count, @first_id OUTPUT;
    INSERT INTO @new_id (n, id)
    SELECT
        i.ord,
        CAST(@first_id AS bigint) + ROW_NUMBER() OVER (ORDER BY i.ord) - 1
    FROM @item AS i;
END;
