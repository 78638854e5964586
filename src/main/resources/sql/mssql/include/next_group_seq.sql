-- A grouped job's place in its group: when @group_key is not NULL, @group_seq becomes the next
-- value of the group sequence, by a procedural SET (the form Microsoft documents for NEXT VALUE
-- FOR outside INSERT ... SELECT). Run through sp_executesql with an OUTPUT parameter only so
-- that the offline T-SQL parser used in CI, which does not know NEXT VALUE FOR in expressions,
-- can read this file. (The caller holds the group's lock, job_group_lock.)
IF @group_key IS NOT NULL
BEGIN
    EXEC sp_executesql
        N'SET @v = NEXT VALUE FOR readpast_job_group_seq;',
        N'@v bigint OUTPUT',
        @group_seq OUTPUT;
END;
