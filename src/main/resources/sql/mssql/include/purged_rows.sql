-- A template (StatementCatalog): the slot "from" is a finished-job table (the dead letters, the
-- archive). Up to @limit of queue @name's rows there deleted for good, into @purged, in id order
-- by a seek of the table's (queue, id) index; rows another transaction holds (a retention
-- sweeper) are skipped with READPAST. The rows to go are a derived table joined by primary key,
-- not a WITH clause the DELETE targets (Babelfish overflows its stack on WITH ... DELETE ...
-- OUTPUT INTO).
DELETE x
OUTPUT deleted.id INTO @purged (id)
FROM {{from}} AS x WITH (ROWLOCK, READPAST, FORCESEEK)
INNER JOIN (
    SELECT TOP (@limit) y.id
    FROM {{from}} AS y WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE y.queue = @name
    ORDER BY y.id
) AS p ON x.id = p.id;
