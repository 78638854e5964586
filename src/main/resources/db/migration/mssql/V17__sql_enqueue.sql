-- Enqueue from T-SQL, inside the application's own transaction: the job exists exactly when
-- the application's transaction commits (docs/sql-enqueue.md).
--
--   DECLARE @id bigint;
--   EXEC readpast_enqueue @queue = N'emails', @type = N'send', @payload = N'{"to":"a@example.com"}', @id = @id OUTPUT;
--   EXEC readpast_enqueue_many @jobs = N'[{"queue":"emails","type":"send"}]';  -- job_position, job_id, created
--
-- The twin of PostgreSQL's V17: the rules of POST /jobs on the same fields (readpast_enqueue_many's
-- items are POST /jobs bodies), refusals as THROW 50400 (50409: the idempotency key is held by
-- a live job of another queue) with the HTTP problem's detail as the message; SqlEnqueueTest
-- compares the two paths case by case. The rules that depend on the broker's configuration
-- read readpast_setting, which every broker writes at start-up. Nothing here waits on a row
-- another claim holds: the enqueue takes the locks POST /jobs takes (the group's applock, the
-- uniqueness key, the idempotency key's range), in the same order. Long-polling brokers find
-- the new job through the due poll their waiting claims run (SQL Server has no NOTIFY).
-- The role readpast_producer may execute the two enqueue procedures and nothing else; the
-- procedures reach the tables through ownership chaining (all owned by the schema's owner).

CREATE TABLE readpast_setting (
    name nvarchar(100) NOT NULL CONSTRAINT pk_readpast_setting PRIMARY KEY,
    value nvarchar(max) NULL,
    updated_at datetime2(6) NOT NULL CONSTRAINT df_readpast_setting_updated DEFAULT (SYSUTCDATETIME())
);
GO

-- A grouped job's place in its group (the caller holds the group's lock). A procedure of its
-- own, created from text: the offline T-SQL parser in CI does not know NEXT VALUE FOR, and
-- Babelfish has it only as a column default (include/babelfish/next_group_seq.sql).
IF SERVERPROPERTY('babelfish') IS NULL
BEGIN
    EXEC sp_executesql N'CREATE PROCEDURE readpast_next_group_seq @v bigint OUTPUT
AS
BEGIN
    SET NOCOUNT ON;
    SET @v = NEXT VALUE FOR readpast_job_group_seq;
END;';
END;
ELSE
BEGIN
    EXEC sp_executesql N'CREATE PROCEDURE readpast_next_group_seq @v bigint OUTPUT
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @next TABLE (n int NOT NULL PRIMARY KEY, v bigint NOT NULL DEFAULT (NEXT VALUE FOR readpast_job_group_seq));
    INSERT INTO @next (n) VALUES (1);
    SELECT @v = x.v FROM @next AS x;
END;';
END;
GO

-- Java's String.length(): UTF-16 code units. On SQL Server nvarchar is UTF-16, so half the
-- bytes; Babelfish stores UTF-8 (DATALENGTH gives UTF-8 bytes there) and counts characters
-- (a character beyond U+FFFF counts one there, two in Java).
CREATE FUNCTION readpast_text_units (@v nvarchar(max))
RETURNS bigint
AS
BEGIN
    RETURN CASE
        WHEN SERVERPROPERTY('babelfish') IS NOT NULL THEN CAST(LEN(@v + N'x') AS bigint) - 1
        ELSE CAST(DATALENGTH(@v) AS bigint) / 2
    END;
END;
GO

-- Free text (a tag, an idempotency or group key): 1-@max UTF-16 units, not blank (Java's
-- isBlank), no control characters (Java's isISOControl).
CREATE PROCEDURE readpast_check_text
    @label nvarchar(20),
    @field nvarchar(20),
    @value nvarchar(max),
    @max_length int
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @message nvarchar(2048);
    DECLARE @blank nvarchar(40) = N' ' + NCHAR(9) + NCHAR(10) + NCHAR(11) + NCHAR(12) + NCHAR(13) + NCHAR(28)
        + NCHAR(29) + NCHAR(30) + NCHAR(31) + NCHAR(5760) + NCHAR(8192) + NCHAR(8193) + NCHAR(8194) + NCHAR(8195)
        + NCHAR(8196) + NCHAR(8197) + NCHAR(8198) + NCHAR(8200) + NCHAR(8201) + NCHAR(8202) + NCHAR(8232)
        + NCHAR(8233) + NCHAR(8287) + NCHAR(12288);
    IF @value IS NULL
    BEGIN
        SET @message = CONCAT(@label, N'''', @field, N''' is required.');
        THROW 50400, @message, 1;
    END;
    IF @value COLLATE Latin1_General_BIN2 NOT LIKE N'%[^' + @blank + N']%'
        OR dbo.readpast_text_units(@value) > @max_length
        OR CHARINDEX(NCHAR(0) COLLATE Latin1_General_BIN2, @value COLLATE Latin1_General_BIN2) > 0
        OR @value COLLATE Latin1_General_BIN2 LIKE N'%[' + NCHAR(1) + N'-' + NCHAR(31) + NCHAR(127) + N'-'
            + NCHAR(159) + N']%'
    BEGIN
        SET @message = CONCAT(@label, N'''', @field, N''' must be 1-', @max_length,
            N' characters without control characters.');
        THROW 50400, @message, 1;
    END;
END;
GO

-- An instant field: ISO-8601 with an offset (as java.time's ISO_OFFSET_DATE_TIME, strict),
-- 1970-9999, as UTC. datetimeoffset takes offsets up to 14:00 (java.time: 18:00) and seven
-- fraction digits (java.time: nine, the rest dropped here).
CREATE PROCEDURE readpast_parse_instant
    @label nvarchar(20),
    @field nvarchar(20),
    @raw nvarchar(max),
    @t datetime2(6) OUTPUT
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @parse_error nvarchar(2048) = CONCAT(@label, N'''', @field,
        N''' must be an ISO-8601 date-time with offset, e.g. 2030-01-01T12:00:00Z.');
    DECLARE @range_error nvarchar(2048) = CONCAT(@label, N'''', @field,
        N''' must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.');
    DECLARE @s nvarchar(max) = @raw;
    DECLARE @sign nchar(1) = CASE WHEN LEFT(@s, 1) IN (N'+', N'-') THEN LEFT(@s, 1) END;
    DECLARE @dash int = CHARINDEX(N'-', @s, 2);
    DECLARE @year nvarchar(max);
    DECLARE @rest nvarchar(max);
    DECLARE @offset nvarchar(10);
    DECLARE @local nvarchar(max);
    DECLARE @local_time datetime2(7);
    DECLARE @offset_minutes int;
    SET @t = NULL;
    IF @raw IS NULL
    BEGIN
        RETURN;
    END;
    IF @dash = 0
    BEGIN
        THROW 50400, @parse_error, 1;
    END;
    SET @year = SUBSTRING(@s, CASE WHEN @sign IS NULL THEN 1 ELSE 2 END,
        @dash - CASE WHEN @sign IS NULL THEN 1 ELSE 2 END);
    SET @rest = SUBSTRING(@s, @dash + 1, 4000);
    -- the year: 4 digits, or a sign and more (java.time: a '+' only beyond 4 digits)
    IF @year = N'' OR @year COLLATE Latin1_General_BIN2 LIKE N'%[^0-9]%'
        OR (@sign IS NULL AND LEN(@year) <> 4)
        OR (@sign = N'-' AND LEN(@year) NOT BETWEEN 4 AND 9)
        OR (@sign = N'+' AND LEN(@year) NOT BETWEEN 5 AND 9)
    BEGIN
        THROW 50400, @parse_error, 1;
    END;
    -- the offset: Z, or +hh:mm / -hh:mm (hours to 15, as PostgreSQL's twin; datetimeoffset: 14)
    IF RIGHT(@rest, 1) = N'Z'
    BEGIN
        SET @offset = N'+00:00';
        SET @local = LEFT(@rest, LEN(@rest) - 1);
    END;
    ELSE IF RIGHT(@rest, 6) COLLATE Latin1_General_BIN2 LIKE N'[-+][01][0-9]:[0-5][0-9]' AND SUBSTRING(RIGHT(@rest, 6), 2, 2) <= N'15'
    BEGIN
        SET @offset = RIGHT(@rest, 6);
        SET @local = LEFT(@rest, LEN(@rest) - 6);
    END;
    ELSE
    BEGIN
        THROW 50400, @parse_error, 1;
    END;
    -- MM-DDThh:mm, then :ss, then .fraction (1-9 digits)
    IF NOT (
        @local COLLATE Latin1_General_BIN2 LIKE N'[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]'
        OR @local COLLATE Latin1_General_BIN2 LIKE N'[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]'
        OR (@local COLLATE Latin1_General_BIN2 LIKE N'[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9]%'
            AND LEN(@local) <= 24 AND SUBSTRING(@local, 16, 20) COLLATE Latin1_General_BIN2 NOT LIKE N'%[^0-9]%')
    )
        OR SUBSTRING(@local, 7, 2) > N'23'
    BEGIN
        THROW 50400, @parse_error, 1;
    END;
    IF @sign IS NOT NULL OR @year < N'1970'
    BEGIN
        -- a valid instant outside what both engines store
        IF TRY_CAST(N'2000-' + LEFT(@local, 5) AS date) IS NULL
        BEGIN
            THROW 50400, @parse_error, 1;
        END;
        THROW 50400, @range_error, 1;
    END;
    IF TRY_CAST(@year + N'-' + LEFT(@local, 5) AS date) IS NULL
    BEGIN
        THROW 50400, @parse_error, 1;
    END;
    -- the local time, then the offset taken off (no datetimeoffset: Babelfish cannot cast ISO
    -- text to it); seven fraction digits at most, as datetime2 keeps
    SET @local_time = TRY_CAST(@year + N'-' + LEFT(@local, 11)
        + CASE WHEN LEN(@local) >= 14 THEN SUBSTRING(@local, 12, 3) ELSE N':00' END
        + CASE WHEN LEN(@local) > 15 THEN LEFT(SUBSTRING(@local, 15, 20), 8) ELSE N'' END AS datetime2(7));
    IF @local_time IS NULL
    BEGIN
        THROW 50400, @parse_error, 1;
    END;
    SET @offset_minutes = CASE LEFT(@offset, 1) WHEN N'-' THEN -1 ELSE 1 END
        * (CAST(SUBSTRING(@offset, 2, 2) AS int) * 60 + CAST(SUBSTRING(@offset, 5, 2) AS int));
    -- past 9999-12-31T23:59:59Z once the offset is taken off (checked before DATEADD overflows)
    IF @offset_minutes < 0 AND @local_time > DATEADD(MINUTE, @offset_minutes, CAST('9999-12-31T23:59:59' AS datetime2(7)))
    BEGIN
        THROW 50400, @range_error, 1;
    END;
    SET @t = CAST(DATEADD(MINUTE, -@offset_minutes, @local_time) AS datetime2(6));
    IF @t < '1970-01-01T00:00:00' OR @t > '9999-12-31T23:59:59'
    BEGIN
        THROW 50400, @range_error, 1;
    END;
END;
GO

-- A webhook URL, as WebhookUrls.check (java.net.URI): webhooks enabled, absolute http(s), a
-- host, no user info or fragment, a usable port, an allowed host.
CREATE PROCEDURE readpast_check_webhook_url
    @label nvarchar(20),
    @url nvarchar(max)
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @message nvarchar(2048);
    DECLARE @u nvarchar(max) = @url;
    DECLARE @colon int;
    DECLARE @scheme nvarchar(max);
    DECLARE @after nvarchar(max);
    DECLARE @end int;
    DECLARE @authority nvarchar(max);
    DECLARE @rest_url nvarchar(max);
    DECLARE @tail nvarchar(max);
    DECLARE @host nvarchar(max);
    DECLARE @port nvarchar(max);
    DECLARE @label_text nvarchar(max);
    DECLARE @dot int;
    DECLARE @ok bit;
    DECLARE @allowed nvarchar(max) = (SELECT s.value FROM readpast_setting AS s WHERE s.name = N'webhook_allowed_hosts');
    DECLARE @entry nvarchar(max);
    DECLARE @comma int;
    DECLARE @i int;
    IF @url IS NULL
    BEGIN
        RETURN;
    END;
    IF COALESCE((SELECT s.value FROM readpast_setting AS s WHERE s.name = N'webhooks_enabled'), N'false') <> N'true'
    BEGIN
        SET @message = CONCAT(@label, N'''webhookUrl'': webhooks are not enabled on this broker ',
            N'(set READPAST_WEBHOOK_SECRET).');
        THROW 50400, @message, 1;
    END;
    IF DATALENGTH(@u) = 0 OR dbo.readpast_text_units(@u) > 2000
        OR CHARINDEX(NCHAR(0) COLLATE Latin1_General_BIN2, @u COLLATE Latin1_General_BIN2) > 0
        OR @u COLLATE Latin1_General_BIN2 LIKE N'%[' + NCHAR(1) + N'-' + NCHAR(32) + NCHAR(127) + N']%'
    BEGIN
        SET @message = CONCAT(@label, N'''webhookUrl'' must be an absolute http or https URL of at most 2000 ',
            N'characters, without spaces or control characters.');
        THROW 50400, @message, 1;
    END;
    -- characters java.net.URI takes: RFC 2396's, and printable non-ASCII; escapes well formed
    SET @ok = 1;
    IF REPLACE(REPLACE(@u, NCHAR(91), N''), NCHAR(93), N'') COLLATE Latin1_General_BIN2
        LIKE N'%[^-A-Za-z0-9._~:/?#@!$&''()*+,;=%' + NCHAR(161) + N'-' + NCHAR(65535) + N']%'
    BEGIN
        SET @ok = 0;
    END;
    SET @i = CHARINDEX(N'%', @u);
    WHILE @i > 0 AND @ok = 1
    BEGIN
        IF SUBSTRING(@u, @i + 1, 2) COLLATE Latin1_General_BIN2 NOT LIKE N'[0-9A-Fa-f][0-9A-Fa-f]'
        BEGIN
            SET @ok = 0;
        END;
        SET @i = CHARINDEX(N'%', @u, @i + 1);
    END;
    -- scheme ":" ["//" authority] path ["?" query] ["#" fragment]
    SET @colon = CHARINDEX(N':', @u);
    SET @scheme = CASE
        WHEN @colon > 1 AND LEFT(@u, @colon - 1) COLLATE Latin1_General_BIN2 NOT LIKE N'%[^-A-Za-z0-9+.]%'
            AND LEFT(@u, 1) COLLATE Latin1_General_BIN2 LIKE N'[A-Za-z]'
            THEN LEFT(@u, @colon - 1)
    END;
    SET @after = CASE WHEN @scheme IS NULL THEN @u ELSE SUBSTRING(@u, @colon + 1, 4000) END;
    IF LEFT(@after, 2) = N'//'
    BEGIN
        -- the first of / ? # after the authority's start (no PATINDEX class: Babelfish's fails)
        SET @rest_url = SUBSTRING(@after, 3, 4000);
        SET @end = (SELECT MIN(p.at) FROM (VALUES (CHARINDEX(N'/', @rest_url)), (CHARINDEX(N'?', @rest_url)),
            (CHARINDEX(N'#', @rest_url))) AS p (at) WHERE p.at > 0);
        SET @end = COALESCE(@end, 0);
        SET @authority = CASE WHEN @end = 0 THEN SUBSTRING(@after, 3, 4000) ELSE SUBSTRING(@after, 3, @end - 1) END;
        SET @tail = CASE WHEN @end = 0 THEN N'' ELSE SUBSTRING(@after, 2 + @end, 4000) END;
    END;
    ELSE
    BEGIN
        SET @tail = @after;
    END;
    IF CHARINDEX(NCHAR(91), @tail) > 0 OR CHARINDEX(NCHAR(93), @tail) > 0 OR (@authority = N'' AND @tail = N'')
    BEGIN
        SET @ok = 0;
    END;
    IF @ok = 0
    BEGIN
        SET @message = CONCAT(@label, N'''webhookUrl'' is not a valid URL.');
        THROW 50400, @message, 1;
    END;
    IF @scheme IS NULL OR LOWER(@scheme) NOT IN (N'http', N'https')
    BEGIN
        SET @message = CONCAT(@label, N'''webhookUrl'' must be an http or https URL.');
        THROW 50400, @message, 1;
    END;
    SET @message = CONCAT(@label, N'''webhookUrl'' must name a host, without user info or a #fragment.');
    IF @authority IS NULL OR @authority = N'' OR CHARINDEX(N'@', @authority) > 0 OR CHARINDEX(N'#', @u) > 0
    BEGIN
        THROW 50400, @message, 1;
    END;
    IF LEFT(@authority, 1) = NCHAR(91)
    BEGIN
        SET @end = CHARINDEX(NCHAR(93), @authority);
        IF @end < 3 OR SUBSTRING(@authority, 2, @end - 2) COLLATE Latin1_General_BIN2 LIKE N'%[^0-9A-Fa-f:.]%'
            OR (LEN(@authority) > @end AND SUBSTRING(@authority, @end + 1, 1) <> N':')
        BEGIN
            SET @message = CONCAT(@label, N'''webhookUrl'' is not a valid URL.');
            THROW 50400, @message, 1;
        END;
        SET @host = LEFT(@authority, @end);
        SET @port = CASE WHEN LEN(@authority) > @end THEN SUBSTRING(@authority, @end + 2, 4000) END;
    END;
    ELSE
    BEGIN
        SET @colon = CHARINDEX(N':', @authority);
        SET @host = CASE WHEN @colon = 0 THEN @authority ELSE LEFT(@authority, @colon - 1) END;
        SET @port = CASE WHEN @colon = 0 THEN NULL ELSE SUBSTRING(@authority, @colon + 1, 4000) END;
        -- a host java.net.URI knows: IPv4, or labels of letters, digits and inner hyphens, the
        -- last one starting with a letter (anything else is a registry name, with no host)
        SET @ok = 0;
        IF @host LIKE N'%_._%._%._%' AND @host COLLATE Latin1_General_BIN2 NOT LIKE N'%[^0-9.]%'
            AND LEN(@host) - LEN(REPLACE(@host, N'.', N'')) = 3
        BEGIN
            SET @ok = 1;
            SET @label_text = @host + N'.';
            WHILE @label_text <> N'' AND @ok = 1
            BEGIN
                SET @dot = CHARINDEX(N'.', @label_text);
                IF @dot = 1 OR @dot > 4 OR CAST(LEFT(@label_text, @dot - 1) AS int) > 255
                BEGIN
                    SET @ok = 0;
                END;
                SET @label_text = SUBSTRING(@label_text, @dot + 1, 4000);
            END;
        END;
        IF @ok = 0 AND @host <> N'' AND @host COLLATE Latin1_General_BIN2 NOT LIKE N'%[^-A-Za-z0-9.]%'
        BEGIN
            SET @ok = 1;
            SET @label_text = CASE WHEN RIGHT(@host, 1) = N'.' THEN @host ELSE @host + N'.' END;
            WHILE @label_text <> N'' AND @ok = 1
            BEGIN
                SET @dot = CHARINDEX(N'.', @label_text);
                IF @dot = 1 OR LEFT(@label_text, 1) = N'-' OR SUBSTRING(@label_text, @dot - 1, 1) = N'-'
                    OR (CHARINDEX(N'.', @label_text, @dot + 1) = 0 AND LEFT(@label_text, 1) COLLATE Latin1_General_BIN2 NOT LIKE N'[A-Za-z]')
                BEGIN
                    SET @ok = 0;
                END;
                SET @label_text = SUBSTRING(@label_text, @dot + 1, 4000);
            END;
        END;
        IF @ok = 0
        BEGIN
            THROW 50400, @message, 1;
        END;
    END;
    IF @port IS NOT NULL AND @port <> N''
    BEGIN
        IF @port COLLATE Latin1_General_BIN2 LIKE N'%[^0-9]%'
        BEGIN
            SET @message = CONCAT(@label, N'''webhookUrl'' is not a valid URL.');
            THROW 50400, @message, 1;
        END;
        IF LEN(@port) > 5 OR CAST(@port AS int) NOT BETWEEN 1 AND 65535
        BEGIN
            SET @message = CONCAT(@label, N'''webhookUrl'' names port ', CAST(CAST(@port AS decimal(38, 0)) AS nvarchar(40)),
                N': a port must be between 1 and 65535.');
            THROW 50400, @message, 1;
        END;
    END;
    IF @allowed IS NOT NULL AND LTRIM(RTRIM(@allowed)) <> N''
    BEGIN
        SET @ok = 0;
        SET @allowed = @allowed + N',';
        WHILE @allowed <> N'' AND @ok = 0
        BEGIN
            SET @comma = CHARINDEX(N',', @allowed);
            SET @entry = LOWER(LTRIM(RTRIM(LEFT(@allowed, @comma - 1))));
            IF @entry = N'*' OR @entry = LOWER(@host)
                OR (LEFT(@entry, 2) = N'*.' AND RIGHT(LOWER(@host), LEN(@entry) - 1) = SUBSTRING(@entry, 2, 4000))
            BEGIN
                SET @ok = 1;
            END;
            SET @allowed = SUBSTRING(@allowed, @comma + 1, 4000);
        END;
        IF @ok = 0
        BEGIN
            SET @message = CONCAT(@label, N'''webhookUrl'': host ''', @host,
                N''' is not in READPAST_WEBHOOK_ALLOWED_HOSTS.');
            THROW 50400, @message, 1;
        END;
    END;
END;
GO

-- One job, its fields as a POST /jobs body gives them (JSON texts for payload and tags, ISO
-- text for the instants): the id, and whether it was created (0: a live job already held its
-- idempotency key, or a job held its uniqueness key within uniqueFor).
CREATE PROCEDURE readpast_enqueue_item
    @label nvarchar(20),
    @queue nvarchar(max),
    @type nvarchar(max),
    @payload nvarchar(max),
    @priority int,
    @delay_seconds bigint,
    @run_at nvarchar(max),
    @tags nvarchar(max),
    @max_attempts int,
    @idempotency_key nvarchar(max),
    @webhook_url nvarchar(max),
    @expires_at nvarchar(max),
    @unique_for bigint,
    @group_key nvarchar(max),
    @traceparent nvarchar(max),
    @tracestate nvarchar(max),
    @fairness_key nvarchar(max),
    @id bigint OUTPUT,
    @created bit OUTPUT
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @message nvarchar(2048);
    DECLARE @payload_max int = COALESCE(
        (SELECT TRY_CAST(s.value AS int) FROM readpast_setting AS s WHERE s.name = N'payload_max_bytes'), 1048576);
    DECLARE @default_attempts int = COALESCE(
        (SELECT TRY_CAST(s.value AS int) FROM readpast_setting AS s WHERE s.name = N'default_max_attempts'), 5);
    DECLARE @now datetime2(6) = SYSUTCDATETIME();
    DECLARE @payload_bytes bigint;
    DECLARE @run datetime2(6);
    DECLARE @expires datetime2(6);
    DECLARE @due datetime2(6);
    DECLARE @tag_key nvarchar(4000);
    DECLARE @tag_value nvarchar(max);
    DECLARE @tag_type int;
    DECLARE @tag_field nvarchar(20);
    DECLARE @unique nvarchar(210);
    DECLARE @hash varbinary(32);
    DECLARE @i int;
    DECLARE @holder bigint;
    DECLARE @held_queue nvarchar(200);
    DECLARE @group_seq bigint;
    DECLARE @applock int;
    DECLARE @resource nvarchar(255);
    DECLARE @known int;
    DECLARE @own_tran bit = 0;
    DECLARE @until datetime2(6);
    DECLARE @taken TABLE (unique_key nvarchar(210) NOT NULL);
    DECLARE @new_job TABLE (id bigint NOT NULL PRIMARY KEY);
    DECLARE @tags_list TABLE (k int NOT NULL PRIMARY KEY, v nvarchar(max) NULL, t int NOT NULL);
    SET @id = NULL;
    SET @created = 0;

    IF @queue IS NULL OR DATALENGTH(@queue) = 0
    BEGIN
        SET @message = CONCAT(@label, N'''queue'' is required.');
        THROW 50400, @message, 1;
    END;
    IF dbo.readpast_text_units(@queue) > 200 OR @queue COLLATE Latin1_General_BIN2 LIKE N'%[^-A-Za-z0-9._:]%'
        OR LEFT(@queue, 1) COLLATE Latin1_General_BIN2 NOT LIKE N'[A-Za-z0-9]'
    BEGIN
        SET @message = CONCAT(@label, N'''queue'' must be 1-200 characters of letters, digits and . _ : - ',
            N'(starting with a letter or digit).');
        THROW 50400, @message, 1;
    END;
    IF @type IS NULL OR DATALENGTH(@type) = 0
    BEGIN
        SET @message = CONCAT(@label, N'''type'' is required.');
        THROW 50400, @message, 1;
    END;
    IF dbo.readpast_text_units(@type) > 200 OR @type COLLATE Latin1_General_BIN2 LIKE N'%[^-A-Za-z0-9._:/$]%'
        OR LEFT(@type, 1) COLLATE Latin1_General_BIN2 NOT LIKE N'[A-Za-z0-9_]'
    BEGIN
        SET @message = CONCAT(@label, N'''type'' must be 1-200 characters of letters, digits and . _ : / $ - ',
            N'(no spaces or control characters).');
        THROW 50400, @message, 1;
    END;
    SET @payload = COALESCE(@payload, N'null');
    IF ISJSON(N'[' + @payload + N']') <> 1 OR (SELECT COUNT(*) FROM OPENJSON(N'[' + @payload + N']')) <> 1
    BEGIN
        SET @message = CONCAT(@label, N'''payload'' must be one JSON value.');
        THROW 50400, @message, 1;
    END;
    -- bytes of UTF-8, as POST /jobs counts. Babelfish stores UTF-8: DATALENGTH is that. SQL
    -- Server: at least one byte per UTF-16 unit, at most three; counted exactly in between
    -- through a UTF-8 collation (2019 and later; 2016 and 2017 count the units: docs/sql-enqueue.md)
    SET @payload_bytes = CASE WHEN SERVERPROPERTY('babelfish') IS NOT NULL THEN DATALENGTH(@payload)
        ELSE DATALENGTH(@payload) / 2 END;
    IF @payload_bytes <= @payload_max AND @payload_bytes * 3 > @payload_max AND SERVERPROPERTY('babelfish') IS NULL
        AND CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 15
    BEGIN
        EXEC sp_executesql
            N'SET @b = DATALENGTH(CAST(@p COLLATE Latin1_General_100_BIN2_UTF8 AS varchar(max)));',
            N'@p nvarchar(max), @b bigint OUTPUT',
            @payload, @payload_bytes OUTPUT;
    END;
    IF @payload_bytes > @payload_max
    BEGIN
        SET @message = CONCAT(@label, N'''payload'' is larger than ', @payload_max, N' bytes of JSON.');
        THROW 50400, @message, 1;
    END;
    SET @priority = COALESCE(@priority, 0);
    -- a delay of 0 is no delay: client generators send the field's old default beside runAt
    IF @delay_seconds IS NOT NULL AND @delay_seconds <> 0 AND @run_at IS NOT NULL
    BEGIN
        SET @message = CONCAT(@label, N'Give either ''delaySeconds'' or ''runAt'', not both.');
        THROW 50400, @message, 1;
    END;
    IF @delay_seconds < 0 OR @delay_seconds > 316224000
    BEGIN
        SET @message = CONCAT(@label, N'''delaySeconds'' must be between 0 and 316224000 (got ', @delay_seconds, N').');
        THROW 50400, @message, 1;
    END;
    EXEC readpast_parse_instant @label = @label, @field = N'runAt', @raw = @run_at, @t = @run OUTPUT;
    IF @tags IS NOT NULL
    BEGIN
        IF ISJSON(@tags) <> 1 OR LEFT(LTRIM(@tags), 1) <> N'['
        BEGIN
            SET @message = CONCAT(@label, N'''tags'' must be an array of strings.');
            THROW 50400, @message, 1;
        END;
        INSERT INTO @tags_list (k, v, t)
        SELECT CAST(j.[key] AS int), j.[value], j.[type]
        FROM OPENJSON(@tags) AS j;
        IF (SELECT COUNT(*) FROM @tags_list) > 50
        BEGIN
            SET @message = CONCAT(@label, N'''tags'' may hold at most 50 tags.');
            THROW 50400, @message, 1;
        END;
        SET @i = 0;
        WHILE @i < (SELECT COUNT(*) FROM @tags_list)
        BEGIN
            SELECT @tag_value = l.v, @tag_type = l.t FROM @tags_list AS l WHERE l.k = @i;
            IF @tag_type NOT IN (0, 1)
            BEGIN
                SET @message = CONCAT(@label, N'''tags'' must be an array of strings.');
                THROW 50400, @message, 1;
            END;
            SET @tag_field = CONCAT(N'tags[', @i, N']');
            SET @tag_value = CASE WHEN @tag_type = 0 THEN NULL ELSE @tag_value END;
            EXEC readpast_check_text @label = @label, @field = @tag_field, @value = @tag_value, @max_length = 100;
            SET @i = @i + 1;
        END;
    END;
    IF @max_attempts < 1 OR @max_attempts > 1000
    BEGIN
        SET @message = CONCAT(@label, N'''maxAttempts'' must be between 1 and 1000 (got ', @max_attempts, N').');
        THROW 50400, @message, 1;
    END;
    IF @idempotency_key IS NOT NULL
    BEGIN
        EXEC readpast_check_text @label = @label, @field = N'idempotencyKey', @value = @idempotency_key,
            @max_length = 200;
        IF RIGHT(@idempotency_key + N'x', 2) = N' x'
        BEGIN
            SET @message = CONCAT(@label, N'''idempotencyKey'' must not end with a space.');
            THROW 50400, @message, 1;
        END;
    END;
    EXEC readpast_check_webhook_url @label = @label, @url = @webhook_url;
    EXEC readpast_parse_instant @label = @label, @field = N'expiresAt', @raw = @expires_at, @t = @expires OUTPUT;
    IF @expires IS NOT NULL AND @run IS NOT NULL AND @expires <= @run
    BEGIN
        SET @message = CONCAT(@label, N'''expiresAt'' must be after ''runAt'': the job could never start.');
        THROW 50400, @message, 1;
    END;
    IF @expires IS NOT NULL AND @expires <= @now
    BEGIN
        SET @message = CONCAT(@label, N'''expiresAt'' (', REPLACE(CONVERT(varchar(19), @expires, 126), ' ', 'T'),
            CASE
                WHEN DATEPART(MICROSECOND, @expires) = 0 THEN ''
                WHEN DATEPART(MICROSECOND, @expires) % 1000 = 0
                    THEN '.' + RIGHT('00' + CAST(DATEPART(MICROSECOND, @expires) / 1000 AS varchar(3)), 3)
                ELSE '.' + RIGHT('00000' + CAST(DATEPART(MICROSECOND, @expires) AS varchar(6)), 6)
            END,
            N'Z) is already past on the database''s clock: the job could never start.');
        THROW 50400, @message, 1;
    END;
    IF @unique_for < 1 OR @unique_for > 31622400
    BEGIN
        SET @message = CONCAT(@label, N'''uniqueFor'' must be between 1 and 31622400 (got ', @unique_for, N').');
        THROW 50400, @message, 1;
    END;
    IF @group_key IS NOT NULL
    BEGIN
        EXEC readpast_check_text @label = @label, @field = N'groupKey', @value = @group_key, @max_length = 200;
    END;
    IF @fairness_key IS NOT NULL
    BEGIN
        EXEC readpast_check_text @label = @label, @field = N'fairnessKey', @value = @fairness_key, @max_length = 200;
        IF RIGHT(@fairness_key + N'x', 2) = N' x'
        BEGIN
            SET @message = CONCAT(@label, N'''fairnessKey'' must not end with a space.');
            THROW 50400, @message, 1;
        END;
    END;
    -- W3C trace context, read leniently as TraceContext does: malformed is dropped, never refused
    SET @traceparent = LTRIM(RTRIM(@traceparent));
    IF NOT (
        @traceparent COLLATE Latin1_General_BIN2 LIKE REPLICATE(N'[0-9a-f]', 2) + N'-' + REPLICATE(N'[0-9a-f]', 32)
            + N'-' + REPLICATE(N'[0-9a-f]', 16) + N'-' + REPLICATE(N'[0-9a-f]', 2) + N'%'
        AND LEFT(@traceparent, 2) <> N'ff'
        AND (LEN(@traceparent) = 55 OR (LEFT(@traceparent, 2) <> N'00' AND SUBSTRING(@traceparent, 56, 1) = N'-'))
        AND SUBSTRING(@traceparent, 4, 32) <> REPLICATE(N'0', 32)
        AND SUBSTRING(@traceparent, 37, 16) <> REPLICATE(N'0', 16)
    )
    BEGIN
        SET @traceparent = NULL;
    END;
    SET @traceparent = LEFT(@traceparent, 55);
    SET @tracestate = CASE
        WHEN @traceparent IS NULL THEN NULL
        WHEN LTRIM(RTRIM(@tracestate)) = N'' OR LEN(LTRIM(RTRIM(@tracestate))) > 512 THEN NULL
        WHEN LTRIM(RTRIM(@tracestate)) COLLATE Latin1_General_BIN2 LIKE N'%[^ -~]%' THEN NULL
        WHEN LEN(@tracestate) - LEN(REPLACE(@tracestate, N',', N'')) >= 32 THEN NULL
        ELSE LTRIM(RTRIM(@tracestate))
    END;

    -- a transaction of its own only when the caller has none and none will start implicitly
    -- (IMPLICIT_TRANSACTIONS, as mssql-jdbc runs with autocommit off: then the caller's begins here)
    IF @@TRANCOUNT = 0 AND (@@OPTIONS & 2) = 0
    BEGIN
        BEGIN TRANSACTION;
        SET @own_tran = 1;
    END;
    IF @group_key IS NOT NULL
    BEGIN
        -- the ordered group's lock, before the uniqueness key, as job_group_lock.sql takes it
        SELECT @known = COUNT(*) FROM readpast_queue AS q WHERE q.name = @queue;
        SET @resource = N'readpast:group:' + CAST(CHECKSUM(@queue) AS nvarchar(11)) + N':' + @group_key;
        EXEC @applock = sp_getapplock @resource, N'Exclusive', N'Transaction', 10000;
        IF @applock < 0
        BEGIN
            THROW 51222, N'readpast: the job group lock was not granted; retry the transaction', 1;
        END;
    END;
    IF @unique_for IS NOT NULL
    BEGIN
        -- uniqueFor: the key's holder within its window is the answer (unique_key_claim.sql).
        -- Without an idempotency key, a digest of queue, type and the payload's text as given
        -- ('t:'; the broker's POST /jobs digests a canonical form, 'h:': see docs/sql-enqueue.md)
        IF @idempotency_key IS NOT NULL
        BEGIN
            SET @unique = N'k:' + @idempotency_key;
        END;
        ELSE
        BEGIN
            -- SHA-256 in hex on SQL Server; Babelfish cannot print or slice a varbinary, so there
            -- four salted SHA-256s each give the 64 bits a cast to bigint takes (self-consistent
            -- per engine: only this engine's SQL enqueue computes 't:' keys)
            IF SERVERPROPERTY('babelfish') IS NULL
            BEGIN
                SET @hash = HASHBYTES('SHA2_256', CAST(@queue + NCHAR(31) + @type + NCHAR(31) + @payload AS varbinary(max)));
                SET @unique = N't:' + LOWER(CONVERT(nvarchar(64), @hash, 2));
            END;
            ELSE
            BEGIN
                SET @unique = N't:';
                SET @i = 1;
                WHILE @i <= 4
                BEGIN
                    SET @unique = @unique + CAST(CAST(HASHBYTES('SHA2_256', CAST(CAST(@i AS nvarchar(1)) + NCHAR(31) + @queue
                        + NCHAR(31) + @type + NCHAR(31) + @payload AS varbinary(max))) AS bigint) AS nvarchar(20)) + N'.';
                    SET @i = @i + 1;
                END;
            END;
        END;
        SET @until = DATEADD(SECOND, CAST(@unique_for AS int), SYSUTCDATETIME());
        UPDATE k
        SET
            k.job_id = NULL,
            k.expires_at = @until,
            k.created_at = SYSUTCDATETIME()
        OUTPUT inserted.unique_key INTO @taken (unique_key)
        FROM readpast_unique_key AS k WITH (UPDLOCK, HOLDLOCK, ROWLOCK)
        WHERE k.unique_key = @unique
            AND k.expires_at <= SYSUTCDATETIME();
        IF NOT EXISTS (SELECT 1 FROM @taken)
        BEGIN
            INSERT INTO readpast_unique_key (unique_key, job_id, expires_at)
            OUTPUT inserted.unique_key INTO @taken (unique_key)
            SELECT @unique, NULL, @until
            WHERE NOT EXISTS (
                SELECT 1
                FROM readpast_unique_key AS h WITH (UPDLOCK, HOLDLOCK)
                WHERE h.unique_key = @unique
            );
        END;
        IF NOT EXISTS (SELECT 1 FROM @taken)
        BEGIN
            SELECT @holder = k.job_id FROM readpast_unique_key AS k WHERE k.unique_key = @unique;
            SELECT @held_queue = h.queue
            FROM (
                SELECT j.queue FROM readpast_job AS j WHERE j.id = @holder
                UNION ALL
                SELECT a.queue FROM readpast_job_archive AS a WHERE a.id = @holder
                UNION ALL
                SELECT d.queue FROM readpast_job_dead AS d WHERE d.id = @holder
            ) AS h;
            IF @held_queue IS NOT NULL
            BEGIN
                IF @held_queue <> @queue
                BEGIN
                    SET @message = CONCAT(@label, N'This idempotency key is held by a live job of another queue.');
                    THROW 50409, @message, 1;
                END;
                SET @id = @holder;
                SET @created = 0;
                IF @own_tran = 1
                BEGIN
                    COMMIT TRANSACTION;
                END;
                RETURN;
            END;
            -- the holder is gone (deleted, or purged by retention): the key is free for this job
            UPDATE k
            SET
                k.job_id = NULL,
                k.expires_at = @until,
                k.created_at = SYSUTCDATETIME()
            FROM readpast_unique_key AS k WITH (UPDLOCK, ROWLOCK)
            WHERE k.unique_key = @unique;
        END;
    END;

    IF NOT EXISTS (SELECT 1 FROM readpast_queue AS eq WHERE eq.name = @queue)
    BEGIN
        INSERT INTO readpast_queue (name)
        SELECT @queue
        WHERE NOT EXISTS (
            SELECT 1
            FROM readpast_queue AS lq WITH (UPDLOCK, HOLDLOCK)
            WHERE lq.name = @queue
        );
    END;
    IF @group_key IS NOT NULL
    BEGIN
        EXEC readpast_next_group_seq @v = @group_seq OUTPUT;
    END;
    -- due: @run_at, else now (after the locks were granted, as POST /jobs's insert sees it) plus the delay
    SET @now = SYSUTCDATETIME();
    SET @due = COALESCE(@run, DATEADD(SECOND, CAST(COALESCE(@delay_seconds, 0) AS int), @now));
    -- the idempotency key's range stays locked to the end of the transaction, so a racing
    -- enqueue with the same key waits here and then finds this job (the filtered unique index
    -- serves the seek: the literal IS NOT NULL)
    INSERT INTO readpast_job (
        queue, type, payload, tags, idempotency_key, priority, max_attempts, due_at, status,
        created_by, modified_by, webhook_url, expires_at, group_key, group_seq, traceparent, tracestate,
        fairness_key
    )
    OUTPUT inserted.id INTO @new_job (id)
    SELECT
        @queue,
        @type,
        @payload,
        @tags,
        @idempotency_key,
        @priority,
        COALESCE(@max_attempts, q.max_attempts, @default_attempts),
        @due,
        CASE WHEN @due > @now THEN 6 ELSE 0 END,
        LEFT(N'sql:' + ORIGINAL_LOGIN(), 200),
        LEFT(N'sql:' + ORIGINAL_LOGIN(), 200),
        @webhook_url,
        @expires,
        @group_key,
        @group_seq,
        @traceparent,
        @tracestate,
        -- in a fair queue, jobs without a key share the key ''
        COALESCE(@fairness_key, CASE WHEN q.fair = 1 THEN N'' END)
    FROM (SELECT 1 AS one) AS o
    LEFT JOIN readpast_queue AS q ON q.name = @queue
    WHERE @idempotency_key IS NULL
        OR NOT EXISTS (
            SELECT 1
            FROM readpast_job AS k WITH (UPDLOCK, HOLDLOCK, INDEX (ux_readpast_job_idempotency))
            WHERE k.idempotency_key = @idempotency_key
                AND k.idempotency_key IS NOT NULL
        );
    SELECT @id = n.id FROM @new_job AS n;
    IF @id IS NOT NULL
    BEGIN
        SET @created = 1;
    END;
    ELSE
    BEGIN
        -- a live job holds the idempotency key: it is the answer
        SELECT @id = j.id, @held_queue = j.queue FROM readpast_job AS j WHERE j.idempotency_key = @idempotency_key;
        IF @held_queue <> @queue
        BEGIN
            SET @message = CONCAT(@label, N'This idempotency key is held by a live job of another queue.');
            THROW 50409, @message, 1;
        END;
    END;
    IF @unique IS NOT NULL
    BEGIN
        UPDATE k
        SET k.job_id = @id
        FROM readpast_unique_key AS k WITH (ROWLOCK)
        WHERE k.unique_key = @unique;
    END;
    IF @own_tran = 1
    BEGIN
        COMMIT TRANSACTION;
    END;
END;
GO

-- One job from typed arguments; @id gets the job's id (an existing job's, for a held
-- idempotency or uniqueness key). Arguments as POST /jobs's fields, @tags a JSON array.
CREATE PROCEDURE readpast_enqueue
    @queue nvarchar(max),
    @type nvarchar(max),
    @payload nvarchar(max) = NULL,
    @priority int = NULL,
    @delay_seconds bigint = NULL,
    @run_at datetimeoffset(7) = NULL,
    @max_attempts int = NULL,
    @idempotency_key nvarchar(max) = NULL,
    @unique_for bigint = NULL,
    @group_key nvarchar(max) = NULL,
    @tags nvarchar(max) = NULL,
    @expires_at datetimeoffset(7) = NULL,
    @webhook_url nvarchar(max) = NULL,
    @traceparent nvarchar(max) = NULL,
    @tracestate nvarchar(max) = NULL,
    @fairness_key nvarchar(max) = NULL,
    @id bigint = NULL OUTPUT
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @created bit;
    -- as ISO-8601 UTC text, as a POST /jobs body gives it
    DECLARE @run_text nvarchar(40) = CASE WHEN @run_at IS NOT NULL
        THEN REPLACE(CONVERT(nvarchar(19), CAST(SWITCHOFFSET(@run_at, 0) AS datetime2(7)), 126), N' ', N'T') + N'.'
            + RIGHT(N'000000' + CAST(DATEPART(MICROSECOND, @run_at) AS nvarchar(7)), 6) + N'Z' END;
    DECLARE @expires_text nvarchar(40) = CASE WHEN @expires_at IS NOT NULL
        THEN REPLACE(CONVERT(nvarchar(19), CAST(SWITCHOFFSET(@expires_at, 0) AS datetime2(7)), 126), N' ', N'T') + N'.'
            + RIGHT(N'000000' + CAST(DATEPART(MICROSECOND, @expires_at) AS nvarchar(7)), 6) + N'Z' END;
    EXEC readpast_enqueue_item
        @label = N'', @queue = @queue, @type = @type, @payload = @payload, @priority = @priority,
        @delay_seconds = @delay_seconds, @run_at = @run_text, @tags = @tags, @max_attempts = @max_attempts,
        @idempotency_key = @idempotency_key, @webhook_url = @webhook_url, @expires_at = @expires_text,
        @unique_for = @unique_for, @group_key = @group_key, @traceparent = @traceparent,
        @tracestate = @tracestate, @fairness_key = @fairness_key, @id = @id OUTPUT, @created = @created OUTPUT;
END;
GO

-- Many jobs in the caller's transaction: @jobs is a JSON array of POST /jobs bodies (as the
-- items of POST /jobs/batch). Unlike the HTTP batch, a bad item refuses the whole call (its
-- message starts "jobs[i]: "). One result set: job_position, job_id, created.
CREATE PROCEDURE readpast_enqueue_many
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @message nvarchar(2048);
    DECLARE @batch_max int = COALESCE(
        (SELECT TRY_CAST(s.value AS int) FROM readpast_setting AS s WHERE s.name = N'batch_max'), 1000);
    DECLARE @n int;
    DECLARE @p int = 0;
    DECLARE @label nvarchar(20);
    DECLARE @item nvarchar(max);
    DECLARE @item_type int;
    DECLARE @unknown nvarchar(4000);
    DECLARE @own_tran bit = 0;
    DECLARE @id bigint;
    DECLARE @created bit;
    DECLARE @queue nvarchar(max);
    DECLARE @type nvarchar(max);
    DECLARE @payload nvarchar(max);
    DECLARE @run_at nvarchar(max);
    DECLARE @tags nvarchar(max);
    DECLARE @idempotency_key nvarchar(max);
    DECLARE @webhook_url nvarchar(max);
    DECLARE @expires_at nvarchar(max);
    DECLARE @group_key nvarchar(max);
    DECLARE @traceparent nvarchar(max);
    DECLARE @tracestate nvarchar(max);
    DECLARE @fairness_key nvarchar(max);
    DECLARE @priority int;
    DECLARE @delay_seconds bigint;
    DECLARE @max_attempts int;
    DECLARE @unique_for bigint;
    DECLARE @bad nvarchar(40);
    DECLARE @items TABLE (k int NOT NULL PRIMARY KEY, v nvarchar(max) NULL, t int NOT NULL);
    DECLARE @f TABLE (k nvarchar(4000) NOT NULL, v nvarchar(max) NULL, t int NOT NULL);
    DECLARE @out TABLE (job_position int NOT NULL PRIMARY KEY, job_id bigint NOT NULL, created bit NOT NULL);

    -- Babelfish's JSON functions cannot read an escaped NUL (\u0000) either: refused as on PostgreSQL
    IF SERVERPROPERTY('babelfish') IS NOT NULL AND CHARINDEX(N'\u0000', @jobs) > 0
    BEGIN
        THROW 50400, N'A string holds \u0000 (NUL), which PostgreSQL''s JSON functions cannot read: the SQL enqueue takes none (POST /jobs takes it in a payload).', 1;
    END;
    IF ISJSON(@jobs) = 1 AND LEFT(LTRIM(@jobs), 1) = N'['
    BEGIN
        INSERT INTO @items (k, v, t)
        SELECT CAST(j.[key] AS int), j.[value], j.[type]
        FROM OPENJSON(@jobs) AS j;
    END;
    SET @n = (SELECT COUNT(*) FROM @items);
    IF @n < 1 OR @n > @batch_max
    BEGIN
        SET @message = CONCAT(N'''jobs'' must hold 1-', @batch_max, N' items.');
        THROW 50400, @message, 1;
    END;
    -- a transaction of its own only when the caller has none and none will start implicitly
    -- (IMPLICIT_TRANSACTIONS, as mssql-jdbc runs with autocommit off: then the caller's begins here)
    IF @@TRANCOUNT = 0 AND (@@OPTIONS & 2) = 0
    BEGIN
        BEGIN TRANSACTION;
        SET @own_tran = 1;
    END;
    WHILE @p < @n
    BEGIN
        SET @label = CONCAT(N'jobs[', @p, N']: ');
        SELECT @item = i.v, @item_type = i.t FROM @items AS i WHERE i.k = @p;
        IF @item_type <> 5
        BEGIN
            SET @message = CONCAT(@label, N'A job must be a JSON object.');
            THROW 50400, @message, 1;
        END;
        DELETE FROM @f;
        INSERT INTO @f (k, v, t)
        SELECT j.[key], j.[value], j.[type]
        FROM OPENJSON(@item) AS j;
        SET @unknown = (
            SELECT TOP (1) x.k FROM @f AS x
            WHERE x.k NOT IN (N'queue', N'type', N'payload', N'priority', N'delaySeconds', N'runAt', N'tags',
                N'maxAttempts', N'idempotencyKey', N'webhookUrl', N'expiresAt', N'uniqueFor', N'groupKey',
                N'traceparent', N'tracestate', N'fairnessKey')
        );
        IF @unknown IS NOT NULL
        BEGIN
            SET @message = CONCAT(@label, N'Unknown field ''', LEFT(@unknown, 60), N'''.');
            THROW 50400, @message, 1;
        END;
        -- strings: type 1 (0: JSON null, as absent)
        SET @bad = (
            SELECT TOP (1) x.k FROM @f AS x
            WHERE x.k IN (N'queue', N'type', N'runAt', N'idempotencyKey', N'webhookUrl', N'expiresAt', N'groupKey',
                N'traceparent', N'tracestate', N'fairnessKey') AND x.t NOT IN (0, 1)
        );
        IF @bad IS NOT NULL
        BEGIN
            SET @message = CONCAT(@label, N'''', @bad, N''' must be a string, not ',
                (SELECT TOP (1) CASE x.t WHEN 2 THEN N'number' WHEN 3 THEN N'boolean' WHEN 4 THEN N'array'
                    ELSE N'object' END FROM @f AS x WHERE x.k = @bad), N'.');
            THROW 50400, @message, 1;
        END;
        -- integers: a JSON integer literal within the Java type's range
        SET @bad = (
            SELECT TOP (1) x.k FROM @f AS x
            WHERE x.k IN (N'priority', N'maxAttempts', N'delaySeconds', N'uniqueFor') AND x.t <> 0
                AND (x.t <> 2 OR x.v COLLATE Latin1_General_BIN2 LIKE N'%[^-0-9]%' OR x.v LIKE N'_%-%' OR x.v IN (N'', N'-')
                    OR x.v LIKE N'0_%' OR x.v LIKE N'-0_%' OR LEN(x.v) > 20
                    OR TRY_CAST(x.v AS decimal(20, 0)) NOT BETWEEN
                        CASE WHEN x.k IN (N'priority', N'maxAttempts') THEN -2147483648 ELSE -9223372036854775808 END
                        AND CASE WHEN x.k IN (N'priority', N'maxAttempts') THEN 2147483647 ELSE 9223372036854775807 END)
        );
        IF @bad IS NOT NULL
        BEGIN
            SET @message = CONCAT(@label, N'''', @bad, N''' must be an integer between ',
                CASE WHEN @bad IN (N'priority', N'maxAttempts') THEN N'-2147483648 and 2147483647'
                    ELSE N'-9223372036854775808 and 9223372036854775807' END, N'.');
            THROW 50400, @message, 1;
        END;
        IF EXISTS (SELECT 1 FROM @f AS x WHERE x.k = N'tags' AND x.t NOT IN (0, 4))
        BEGIN
            SET @message = CONCAT(@label, N'''tags'' must be an array of strings.');
            THROW 50400, @message, 1;
        END;
        SELECT
            @queue = MAX(CASE WHEN x.k = N'queue' AND x.t = 1 THEN x.v END),
            @type = MAX(CASE WHEN x.k = N'type' AND x.t = 1 THEN x.v END),
            -- the payload as JSON text: a string re-escaped, anything else as written
            @payload = MAX(CASE WHEN x.k = N'payload' THEN
                CASE x.t WHEN 0 THEN N'null' WHEN 1 THEN N'"' + STRING_ESCAPE(x.v, 'json') + N'"' ELSE x.v END END),
            @run_at = MAX(CASE WHEN x.k = N'runAt' AND x.t = 1 THEN x.v END),
            @tags = MAX(CASE WHEN x.k = N'tags' AND x.t = 4 THEN x.v END),
            @idempotency_key = MAX(CASE WHEN x.k = N'idempotencyKey' AND x.t = 1 THEN x.v END),
            @webhook_url = MAX(CASE WHEN x.k = N'webhookUrl' AND x.t = 1 THEN x.v END),
            @expires_at = MAX(CASE WHEN x.k = N'expiresAt' AND x.t = 1 THEN x.v END),
            @group_key = MAX(CASE WHEN x.k = N'groupKey' AND x.t = 1 THEN x.v END),
            @traceparent = MAX(CASE WHEN x.k = N'traceparent' AND x.t = 1 THEN x.v END),
            @tracestate = MAX(CASE WHEN x.k = N'tracestate' AND x.t = 1 THEN x.v END),
            @fairness_key = MAX(CASE WHEN x.k = N'fairnessKey' AND x.t = 1 THEN x.v END),
            @priority = MAX(CASE WHEN x.k = N'priority' AND x.t = 2 THEN CAST(x.v AS int) END),
            @max_attempts = MAX(CASE WHEN x.k = N'maxAttempts' AND x.t = 2 THEN CAST(x.v AS int) END),
            @delay_seconds = MAX(CASE WHEN x.k = N'delaySeconds' AND x.t = 2 THEN CAST(x.v AS bigint) END),
            @unique_for = MAX(CASE WHEN x.k = N'uniqueFor' AND x.t = 2 THEN CAST(x.v AS bigint) END)
        FROM @f AS x;
        EXEC readpast_enqueue_item
            @label = @label, @queue = @queue, @type = @type, @payload = @payload, @priority = @priority,
            @delay_seconds = @delay_seconds, @run_at = @run_at, @tags = @tags, @max_attempts = @max_attempts,
            @idempotency_key = @idempotency_key, @webhook_url = @webhook_url, @expires_at = @expires_at,
            @unique_for = @unique_for, @group_key = @group_key, @traceparent = @traceparent,
            @tracestate = @tracestate, @fairness_key = @fairness_key, @id = @id OUTPUT, @created = @created OUTPUT;
        INSERT INTO @out (job_position, job_id, created) VALUES (@p, @id, @created);
        SET @p = @p + 1;
    END;
    IF @own_tran = 1
    BEGIN
        COMMIT TRANSACTION;
    END;
    SELECT o.job_position, o.job_id, o.created
    FROM @out AS o
    ORDER BY o.job_position;
END;
GO

-- The producer role: the two enqueue procedures, nothing else. Creating a role needs the
-- right to; without it the migration goes on, and docs/sql-enqueue.md shows the grants.
IF DATABASE_PRINCIPAL_ID('readpast_producer') IS NULL
BEGIN
    BEGIN TRY
        EXEC sp_executesql N'CREATE ROLE readpast_producer;';
    END TRY
    BEGIN CATCH
        PRINT 'Readpast could not create the role readpast_producer: create it and grant it as docs/sql-enqueue.md shows';
    END CATCH;
END;
IF DATABASE_PRINCIPAL_ID('readpast_producer') IS NOT NULL
BEGIN
    EXEC sp_executesql N'GRANT EXECUTE ON OBJECT::readpast_enqueue TO readpast_producer;';
    EXEC sp_executesql N'GRANT EXECUTE ON OBJECT::readpast_enqueue_many TO readpast_producer;';
END;
GO
