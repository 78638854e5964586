-- Enqueue from SQL, inside the application's own transaction: the job exists exactly when the
-- application's transaction commits (docs/sql-enqueue.md).
--
--   SELECT readpast_enqueue('emails', 'send', '{"to": "a@example.com"}');        -- the job's id
--   SELECT * FROM readpast_enqueue_many('[{"queue": "emails", "type": "send"}]'); -- position, id, created
--
-- Both apply the rules of POST /jobs to the same fields (readpast_enqueue_many's items are
-- POST /jobs bodies), and refuse bad input with SQLSTATE RP400 (RP409: the idempotency key is
-- held by a live job of another queue), the message naming the field as the HTTP problem's
-- detail does; SqlEnqueueTest runs every hostile case of POST /jobs through both and compares.
-- The rules that depend on the broker's configuration (payload limit, default attempts,
-- webhooks, batch limit) read readpast_setting, which every broker writes at start-up.
-- The functions run as their owner (SECURITY DEFINER) with a fixed search_path; PUBLIC may
-- not run them; the role readpast_producer may run the two enqueue functions and nothing else.

CREATE TABLE readpast_setting (
    name       varchar(100) PRIMARY KEY,
    value      text NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Refuses with Readpast's SQLSTATE; label is "" for one job, "jobs[i]: " in a batch.
CREATE FUNCTION readpast_refuse(label text, message text, code text DEFAULT 'RP400') RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION USING ERRCODE = code, MESSAGE = label || message,
        HINT = 'Readpast refused the enqueue by the rules of POST /jobs; nothing was written by this call.';
END
$fn$;

CREATE FUNCTION readpast_setting_int(setting text, fallback integer) RETURNS integer
LANGUAGE sql STABLE AS $fn$
    SELECT COALESCE((SELECT CAST(value AS integer) FROM readpast_setting WHERE name = setting), fallback)
$fn$;

-- A string field: null when absent or JSON null; any other JSON type is refused.
CREATE FUNCTION readpast_json_string(label text, item json, field text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
    v json := item -> field;
BEGIN
    IF v IS NULL OR json_typeof(v) = 'null' THEN
        RETURN NULL;
    END IF;
    IF json_typeof(v) <> 'string' THEN
        PERFORM readpast_refuse(label, format('''%s'' must be a string, not %s.', field, json_typeof(v)));
    END IF;
    RETURN item ->> field;
END
$fn$;

-- An integer field (JSON integer literal within lo..hi, the Java type's range): null when absent.
CREATE FUNCTION readpast_json_integer(label text, item json, field text, lo numeric, hi numeric) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
    v json := item -> field;
    t text;
BEGIN
    IF v IS NULL OR json_typeof(v) = 'null' THEN
        RETURN NULL;
    END IF;
    t := btrim(CAST(v AS text), E' \t\r\n');
    IF json_typeof(v) <> 'number' OR t !~ '^-?(0|[1-9][0-9]{0,30})$'
            OR CAST(t AS numeric) < lo OR CAST(t AS numeric) > hi THEN
        PERFORM readpast_refuse(label, format('''%s'' must be an integer between %s and %s.', field, lo, hi));
    END IF;
    RETURN CAST(t AS bigint);
END
$fn$;

-- Java's String.length(): UTF-16 code units (a character beyond U+FFFF counts two).
CREATE FUNCTION readpast_utf16_length(s text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT char_length(s) + char_length(regexp_replace(s, '[^\U00010000-\U0010FFFF]', '', 'g'))
$fn$;

-- Free text (a tag, an idempotency or group key): 1-max characters, not blank, no control characters.
CREATE FUNCTION readpast_free_text(label text, field text, value text, max_length integer) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
    IF value IS NULL THEN
        PERFORM readpast_refuse(label, format('''%s'' is required.', field));
    END IF;
    -- blank as Java's isBlank (Character.isWhitespace), control as Character.isISOControl
    IF value ~ '^[ \t\n\u000B\f\r\u001C-\u001F\u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]*$'
            OR readpast_utf16_length(value) > max_length OR value ~ '[\u0001-\u001F\u007F-\u009F]' THEN
        PERFORM readpast_refuse(label, format('''%s'' must be 1-%s characters without control characters.',
                                              field, max_length));
    END IF;
END
$fn$;

-- An instant field: ISO-8601 with an offset (as java.time's ISO_OFFSET_DATE_TIME, strict:
-- real calendar days, hours 0-23), 1970-9999. Checked without a cast that could fail, so no
-- subtransaction per job. PostgreSQL takes offsets up to 15:59; java.time to 18:00.
CREATE FUNCTION readpast_json_instant(label text, item json, field text) RETURNS timestamptz
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    raw text := readpast_json_string(label, item, field);
    parse_error text := format('''%s'' must be an ISO-8601 date-time with offset, e.g. 2030-01-01T12:00:00Z.', field);
    range_error text := format('''%s'' must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.', field);
    y integer;
    mo integer;
    d integer;
    t timestamptz;
BEGIN
    IF raw IS NULL THEN
        RETURN NULL;
    END IF;
    -- the year: 4 digits, or a sign and more (java.time: a '+' only beyond 4 digits)
    IF raw !~ ('^([0-9]{4}|-[0-9]{4,9}|\+[0-9]{5,9})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]'
               || '(:[0-5][0-9](\.[0-9]{1,9})?)?(Z|[+-](0[0-9]|1[0-5]):[0-5][0-9](:[0-5][0-9])?)$') THEN
        PERFORM readpast_refuse(label, parse_error);
    END IF;
    IF raw !~ '^[0-9]{4}-' THEN
        PERFORM readpast_refuse(label, range_error);
    END IF;
    y := CAST(substr(raw, 1, 4) AS integer);
    mo := CAST(substr(raw, 6, 2) AS integer);
    d := CAST(substr(raw, 9, 2) AS integer);
    IF y < 1 THEN
        PERFORM readpast_refuse(label, range_error);
    END IF;
    IF d > extract(day FROM make_date(y, mo, 1) + interval '1 month' - interval '1 day') THEN
        PERFORM readpast_refuse(label, parse_error);
    END IF;
    t := CAST(raw AS timestamptz);
    IF t < TIMESTAMPTZ '1970-01-01 00:00:00+00' OR t > TIMESTAMPTZ '9999-12-31 23:59:59+00' THEN
        PERFORM readpast_refuse(label, range_error);
    END IF;
    RETURN t;
END
$fn$;

-- A timestamptz argument as the ISO-8601 text a POST /jobs body gives (outside 1970-9999: a
-- text the range rule refuses, as to_char would print a year BC as AD).
CREATE FUNCTION readpast_instant_arg(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT CASE WHEN t IS NULL THEN NULL
                WHEN isfinite(t) AND t >= TIMESTAMPTZ '1970-01-01 00:00:00+00'
                     AND t < TIMESTAMPTZ '10000-01-01 00:00:00+00'
                THEN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                ELSE '0001-01-01T00:00:00Z' END
$fn$;

-- An instant as java.time.Instant prints it (UTC; fraction only when there is one).
CREATE FUNCTION readpast_instant_text(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
        || CASE WHEN extract(microseconds FROM t) % 1000000 = 0 THEN ''
                WHEN extract(microseconds FROM t) % 1000 = 0 THEN to_char(t AT TIME ZONE 'UTC', '.MS')
                ELSE to_char(t AT TIME ZONE 'UTC', '.US') END
        || 'Z'
$fn$;

-- A webhook URL, as WebhookUrls.check: webhooks enabled, absolute http(s), a host, no user
-- info or fragment, a usable port, an allowed host.
CREATE FUNCTION readpast_webhook_url(label text, url text) RETURNS text
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    m text[];
    host text;
    port text;
    allowed text := (SELECT value FROM readpast_setting WHERE name = 'webhook_allowed_hosts');
    ok boolean;
BEGIN
    IF url IS NULL THEN
        RETURN NULL;
    END IF;
    IF COALESCE((SELECT value FROM readpast_setting WHERE name = 'webhooks_enabled'), 'false') <> 'true' THEN
        PERFORM readpast_refuse(label, '''webhookUrl'': webhooks are not enabled on this broker '
                                       || '(set READPAST_WEBHOOK_SECRET).');
    END IF;
    IF url = '' OR char_length(url) > 2000 OR url ~ '[\u0001-\u0020\u007F]' THEN
        PERFORM readpast_refuse(label, '''webhookUrl'' must be an absolute http or https URL of at most 2000 '
                                       || 'characters, without spaces or control characters.');
    END IF;
    -- scheme ":" ["//" authority] path ["?" query] ["#" fragment] (RFC 3986, appendix B)
    m := regexp_match(url, '^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(//([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$');
    -- java.net.URI: ASCII as RFC 2396 allows it, and printable non-ASCII; escapes well formed
    IF m IS NULL OR url ~ '[^A-Za-z0-9._~:/?#\[\]@!$&''()*+,;=%\u00A1-\U0010FFFF-]'
            OR url ~ '%(.?$|[^0-9A-Fa-f]|[0-9A-Fa-f][^0-9A-Fa-f])'
            OR concat(m[4], m[5], m[6]) ~ '[\[\]]'
            -- "scheme://" and nothing after: java.net.URI expects an authority there
            OR (m[2] = '//' AND m[4] = '' AND m[5] IS NULL AND m[6] IS NULL) THEN
        PERFORM readpast_refuse(label, '''webhookUrl'' is not a valid URL.');
    END IF;
    IF m[1] IS NULL OR lower(m[1]) NOT IN ('http', 'https') THEN
        PERFORM readpast_refuse(label, '''webhookUrl'' must be an http or https URL.');
    END IF;
    IF m[3] IS NULL OR m[3] = '' OR position('@' IN m[3]) > 0 OR m[6] IS NOT NULL THEN
        PERFORM readpast_refuse(label, '''webhookUrl'' must name a host, without user info or a #fragment.');
    END IF;
    IF m[3] ~ '^\[' THEN
        host := substring(m[3] FROM '^(\[[0-9A-Fa-f:.]+\])(:[0-9]*)?$');
        port := substring(m[3] FROM '^\[[0-9A-Fa-f:.]+\]:([0-9]*)$');
        IF host IS NULL THEN
            PERFORM readpast_refuse(label, '''webhookUrl'' is not a valid URL.');
        END IF;
    ELSE
        host := substring(m[3] FROM '^([^:]*)(:[0-9]*)?$');
        port := substring(m[3] FROM ':([0-9]*)$');
        -- a host java.net.URI knows: IPv4, or labels of letters, digits and inner hyphens, the last
        -- one starting with a letter (anything else is a registry name, with no host)
        IF host IS NULL OR NOT (
                (host ~ '^[0-9]{1,3}(\.[0-9]{1,3}){3}$'
                 AND (SELECT bool_and(CAST(x AS integer) <= 255) FROM unnest(string_to_array(host, '.')) AS x))
                OR host ~ '^([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?\.?$') THEN
            PERFORM readpast_refuse(label, '''webhookUrl'' must name a host, without user info or a #fragment.');
        END IF;
    END IF;
    IF port IS NOT NULL AND port <> '' AND (char_length(port) > 5 OR CAST(port AS integer) NOT BETWEEN 1 AND 65535) THEN
        PERFORM readpast_refuse(label, format('''webhookUrl'' names port %s: a port must be between 1 and 65535.',
                                              CAST(port AS numeric)));
    END IF;
    IF allowed IS NOT NULL AND btrim(allowed) <> '' THEN
        SELECT bool_or(e = '*' OR e = lower(host) OR (e LIKE '*.%' AND lower(host) LIKE '%' || substr(e, 2)))
        INTO ok
        FROM (SELECT lower(btrim(x)) AS e FROM unnest(string_to_array(allowed, ',')) AS x) AS entries;
        IF NOT COALESCE(ok, false) THEN
            PERFORM readpast_refuse(label, format('''webhookUrl'': host ''%s'' is not in READPAST_WEBHOOK_ALLOWED_HOSTS.',
                                                  host));
        END IF;
    END IF;
    RETURN url;
END
$fn$;

-- W3C traceparent, read leniently as TraceContext does: malformed is dropped (null), never refused.
CREATE FUNCTION readpast_traceparent(value text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT CASE WHEN v ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$'
                 AND left(v, 2) <> 'ff'
                 AND (char_length(v) = 55 OR left(v, 2) <> '00')
                 AND substr(v, 4, 32) <> repeat('0', 32) AND substr(v, 37, 16) <> repeat('0', 16)
                THEN left(v, 55) END
    FROM (SELECT btrim(value, E' \t\r\n\f\u000B') AS v) AS x
$fn$;

CREATE FUNCTION readpast_tracestate(value text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT CASE WHEN v <> '' AND char_length(v) <= 512 AND v ~ '^[\u0020-\u007E]*$'
                 AND char_length(v) - char_length(replace(v, ',', '')) < 32
                THEN v END
    FROM (SELECT btrim(value, E' \t\r\n\f\u000B') AS v) AS x
$fn$;

-- The uniqueness key of a uniqueFor enqueue without an idempotency key: a digest of queue,
-- type and payload, the payload in jsonb's canonical form (object members in any order, and
-- any spacing, count as the same payload). The broker's POST /jobs asks this function too.
CREATE FUNCTION readpast_unique_digest(queue text, type text, payload text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT 'h:' || encode(sha256(convert_to(queue || chr(31) || type || chr(31) || CAST(CAST(payload AS jsonb) AS text),
                                            'UTF8')), 'hex')
$fn$;

-- One job, a POST /jobs body as JSON: its id, and whether it was created (false: a live job
-- already held its idempotency key, or a job held its uniqueness key within uniqueFor).
CREATE FUNCTION readpast_enqueue_item(label text, item json, OUT job_id bigint, OUT created boolean)
LANGUAGE plpgsql SECURITY DEFINER AS $fn$
DECLARE
    field text;
    v_queue text;
    v_type text;
    v_payload text;
    v_priority integer;
    v_delay bigint;
    v_run_at timestamptz;
    v_tags json;
    v_max_attempts integer;
    v_key text;
    v_webhook text;
    v_expires timestamptz;
    v_unique_for bigint;
    v_group text;
    v_fairness text;
    v_traceparent text;
    v_tracestate text;
    v_now timestamptz := statement_timestamp();
    v_due timestamptz;
    v_unique text;
    v_holder bigint;
    v_held_queue text;
    v_claimed text;
    i integer;
BEGIN
    IF item IS NULL OR json_typeof(item) <> 'object' THEN
        PERFORM readpast_refuse(label, 'A job must be a JSON object.');
    END IF;
    -- an escaped NUL (\u0000) after an even number of backslashes: PostgreSQL's json functions
    -- cannot read an object that holds one, anywhere
    IF position('\u0000' IN CAST(item AS text)) > 0 AND CAST(item AS text) ~ '(^|[^\\])(\\\\)*\\u0000' THEN
        PERFORM readpast_refuse(label, 'A string holds \u0000 (NUL), which PostgreSQL''s JSON functions cannot read: '
                                       || 'the SQL enqueue takes none (POST /jobs takes it in a payload).');
    END IF;
    FOR field IN SELECT json_object_keys(item) LOOP
        IF field NOT IN ('queue', 'type', 'payload', 'priority', 'delaySeconds', 'runAt', 'tags', 'maxAttempts',
                         'idempotencyKey', 'webhookUrl', 'expiresAt', 'uniqueFor', 'groupKey', 'traceparent',
                         'tracestate', 'fairnessKey') THEN
            PERFORM readpast_refuse(label, format('Unknown field ''%s''.', left(field, 60)));
        END IF;
    END LOOP;

    v_queue := readpast_json_string(label, item, 'queue');
    IF v_queue IS NULL OR v_queue = '' THEN
        PERFORM readpast_refuse(label, '''queue'' is required.');
    END IF;
    IF char_length(v_queue) > 200 OR v_queue !~ '^[A-Za-z0-9][A-Za-z0-9._:-]*$' THEN
        PERFORM readpast_refuse(label, '''queue'' must be 1-200 characters of letters, digits and . _ : - '
                                       || '(starting with a letter or digit).');
    END IF;
    v_type := readpast_json_string(label, item, 'type');
    IF v_type IS NULL OR v_type = '' THEN
        PERFORM readpast_refuse(label, '''type'' is required.');
    END IF;
    IF char_length(v_type) > 200 OR v_type !~ '^[A-Za-z0-9_][A-Za-z0-9._:/$-]*$' THEN
        PERFORM readpast_refuse(label, '''type'' must be 1-200 characters of letters, digits and . _ : / $ - '
                                       || '(no spaces or control characters).');
    END IF;
    v_payload := COALESCE(CAST(item -> 'payload' AS text), 'null');
    IF octet_length(v_payload) > readpast_setting_int('payload_max_bytes', 1048576) THEN
        PERFORM readpast_refuse(label, format('''payload'' is larger than %s bytes of JSON.',
                                              readpast_setting_int('payload_max_bytes', 1048576)));
    END IF;
    v_priority := COALESCE(readpast_json_integer(label, item, 'priority', -2147483648, 2147483647), 0);
    v_delay := readpast_json_integer(label, item, 'delaySeconds', -9223372036854775808, 9223372036854775807);
    -- a delay of 0 is no delay: client generators send the field's old default beside runAt
    IF v_delay IS NOT NULL AND v_delay <> 0 AND readpast_json_string(label, item, 'runAt') IS NOT NULL THEN
        PERFORM readpast_refuse(label, 'Give either ''delaySeconds'' or ''runAt'', not both.');
    END IF;
    IF v_delay < 0 OR v_delay > 316224000 THEN
        PERFORM readpast_refuse(label, format('''delaySeconds'' must be between 0 and 316224000 (got %s).', v_delay));
    END IF;
    v_run_at := readpast_json_instant(label, item, 'runAt');
    v_tags := item -> 'tags';
    IF v_tags IS NOT NULL AND json_typeof(v_tags) = 'null' THEN
        v_tags := NULL;
    END IF;
    IF v_tags IS NOT NULL THEN
        IF json_typeof(v_tags) <> 'array' THEN
            PERFORM readpast_refuse(label, '''tags'' must be an array of strings.');
        END IF;
        IF json_array_length(v_tags) > 50 THEN
            PERFORM readpast_refuse(label, '''tags'' may hold at most 50 tags.');
        END IF;
        FOR i IN 0 .. json_array_length(v_tags) - 1 LOOP
            IF json_typeof(v_tags -> i) NOT IN ('string', 'null') THEN
                PERFORM readpast_refuse(label, '''tags'' must be an array of strings.');
            END IF;
            PERFORM readpast_free_text(label, format('tags[%s]', i), v_tags ->> i, 100);
        END LOOP;
    END IF;
    v_max_attempts := readpast_json_integer(label, item, 'maxAttempts', -2147483648, 2147483647);
    IF v_max_attempts < 1 OR v_max_attempts > 1000 THEN
        PERFORM readpast_refuse(label, format('''maxAttempts'' must be between 1 and 1000 (got %s).', v_max_attempts));
    END IF;
    v_key := readpast_json_string(label, item, 'idempotencyKey');
    IF v_key IS NOT NULL THEN
        PERFORM readpast_free_text(label, 'idempotencyKey', v_key, 200);
        IF right(v_key, 1) = ' ' THEN
            PERFORM readpast_refuse(label, '''idempotencyKey'' must not end with a space.');
        END IF;
    END IF;
    v_webhook := readpast_webhook_url(label, readpast_json_string(label, item, 'webhookUrl'));
    v_expires := readpast_json_instant(label, item, 'expiresAt');
    IF v_expires IS NOT NULL AND v_run_at IS NOT NULL AND v_expires <= v_run_at THEN
        PERFORM readpast_refuse(label, '''expiresAt'' must be after ''runAt'': the job could never start.');
    END IF;
    IF v_expires IS NOT NULL AND v_expires <= v_now THEN
        PERFORM readpast_refuse(label, format('''expiresAt'' (%s) is already past on the database''s clock: the job '
                                              || 'could never start.', readpast_instant_text(v_expires)));
    END IF;
    v_unique_for := readpast_json_integer(label, item, 'uniqueFor', -9223372036854775808, 9223372036854775807);
    IF v_unique_for < 1 OR v_unique_for > 31622400 THEN
        PERFORM readpast_refuse(label, format('''uniqueFor'' must be between 1 and 31622400 (got %s).', v_unique_for));
    END IF;
    v_group := readpast_json_string(label, item, 'groupKey');
    IF v_group IS NOT NULL THEN
        PERFORM readpast_free_text(label, 'groupKey', v_group, 200);
    END IF;
    v_fairness := readpast_json_string(label, item, 'fairnessKey');
    IF v_fairness IS NOT NULL THEN
        PERFORM readpast_free_text(label, 'fairnessKey', v_fairness, 200);
        IF right(v_fairness, 1) = ' ' THEN
            PERFORM readpast_refuse(label, '''fairnessKey'' must not end with a space.');
        END IF;
    END IF;
    v_traceparent := readpast_traceparent(readpast_json_string(label, item, 'traceparent'));
    v_tracestate := CASE WHEN v_traceparent IS NOT NULL
                         THEN readpast_tracestate(readpast_json_string(label, item, 'tracestate')) END;

    v_due := COALESCE(v_run_at, v_now + COALESCE(v_delay, 0) * interval '1 second');
    IF v_group IS NOT NULL THEN
        -- the ordered group's lock (job_group_lock.sql), before the uniqueness key, as every path
        PERFORM pg_advisory_xact_lock(1380993874, hashtext(v_queue || chr(31) || v_group));
    END IF;
    IF v_unique_for IS NOT NULL THEN
        -- uniqueFor: the key's holder within its window is the answer (unique_key_claim.sql)
        v_unique := CASE WHEN v_key IS NOT NULL THEN 'k:' || v_key
                         ELSE readpast_unique_digest(v_queue, v_type, v_payload) END;
        INSERT INTO readpast_unique_key AS k (unique_key, job_id, expires_at)
        VALUES (v_unique, NULL, now() + v_unique_for * interval '1 second')
        ON CONFLICT (unique_key) DO UPDATE SET job_id = NULL, expires_at = EXCLUDED.expires_at, created_at = now()
        WHERE k.expires_at <= now()
        RETURNING k.unique_key INTO v_claimed;
        IF v_claimed IS NULL THEN
            SELECT k.job_id INTO v_holder FROM readpast_unique_key AS k WHERE k.unique_key = v_unique;
            SELECT h.queue INTO v_held_queue
            FROM (SELECT queue FROM readpast_job WHERE id = v_holder
                  UNION ALL SELECT queue FROM readpast_job_archive WHERE id = v_holder
                  UNION ALL SELECT queue FROM readpast_job_dead WHERE id = v_holder) AS h;
            IF v_held_queue IS NOT NULL THEN
                IF v_held_queue <> v_queue THEN
                    PERFORM readpast_refuse(label, 'This idempotency key is held by a live job of another queue.', 'RP409');
                END IF;
                job_id := v_holder;
                created := false;
                RETURN;
            END IF;
            -- the holder is gone (deleted, or purged by retention): the key is free for this job
            UPDATE readpast_unique_key SET job_id = NULL, expires_at = now() + v_unique_for * interval '1 second',
                                           created_at = now()
            WHERE unique_key = v_unique;
        END IF;
    END IF;

    INSERT INTO readpast_queue (name) VALUES (v_queue) ON CONFLICT (name) DO NOTHING;
    FOR i IN 1 .. 5 LOOP
        INSERT INTO readpast_job (
            queue, type, payload, tags, idempotency_key, priority, max_attempts, due_at, status,
            created_by, modified_by, webhook_url, expires_at, group_key, group_seq, traceparent, tracestate,
            fairness_key)
        SELECT v_queue, v_type, v_payload, CAST(v_tags AS text), v_key, v_priority,
               COALESCE(v_max_attempts, q.max_attempts, readpast_setting_int('default_max_attempts', 5)),
               v_due, CASE WHEN v_due > v_now THEN 6 ELSE 0 END,
               left('sql:' || session_user, 200), left('sql:' || session_user, 200), v_webhook, v_expires, v_group,
               CASE WHEN v_group IS NULL THEN NULL ELSE nextval('readpast_job_group_seq') END,
               v_traceparent, v_tracestate,
               -- in a fair queue, jobs without a key share the key ''
               COALESCE(v_fairness, CASE WHEN q.fair THEN '' END)
        FROM (SELECT 1) AS one
        LEFT JOIN readpast_queue AS q ON q.name = v_queue
        ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING id INTO job_id;
        IF job_id IS NOT NULL THEN
            created := true;
            EXIT;
        END IF;
        -- a live job holds the idempotency key: it is the answer
        SELECT j.id, j.queue INTO job_id, v_held_queue FROM readpast_job AS j WHERE j.idempotency_key = v_key;
        IF job_id IS NOT NULL THEN
            IF v_held_queue <> v_queue THEN
                PERFORM readpast_refuse(label, 'This idempotency key is held by a live job of another queue.', 'RP409');
            END IF;
            created := false;
            EXIT;
        END IF;
        -- the holder finished in between: the key is free again, insert
    END LOOP;
    IF job_id IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '40001', MESSAGE = 'idempotent enqueue kept racing; retry the transaction';
    END IF;
    IF v_unique IS NOT NULL THEN
        UPDATE readpast_unique_key SET job_id = readpast_enqueue_item.job_id WHERE unique_key = v_unique;
    END IF;
    IF created THEN
        -- wakes the brokers' long-polls at commit (PgNotifications' format: sender, then queue TAB count or due time)
        PERFORM pg_notify('readpast_jobs', 'sql' || chr(10) || v_queue || chr(9)
            || CASE WHEN v_due > v_now THEN 'due:' || CAST(floor(extract(epoch FROM v_due) * 1000) AS bigint)
                    ELSE '1' END);
    END IF;
END
$fn$;

-- One job, from typed arguments: the job's id (an existing job's, for a held idempotency or
-- uniqueness key). Arguments as POST /jobs's fields; absent ones as there.
CREATE FUNCTION readpast_enqueue(
    queue text, type text, payload jsonb DEFAULT NULL, priority integer DEFAULT NULL,
    delay_seconds bigint DEFAULT NULL, run_at timestamptz DEFAULT NULL, max_attempts integer DEFAULT NULL,
    idempotency_key text DEFAULT NULL, unique_for bigint DEFAULT NULL, group_key text DEFAULT NULL,
    tags text[] DEFAULT NULL, expires_at timestamptz DEFAULT NULL, webhook_url text DEFAULT NULL,
    traceparent text DEFAULT NULL, tracestate text DEFAULT NULL, fairness_key text DEFAULT NULL) RETURNS bigint
LANGUAGE sql SECURITY DEFINER AS $fn$
    SELECT e.job_id
    FROM readpast_enqueue_item('', (
        SELECT CAST(COALESCE(jsonb_object_agg(f.key, f.value), '{}') AS json)
        FROM jsonb_each(jsonb_build_object(
            'queue', queue, 'type', type, 'payload', payload, 'priority', priority,
            'delaySeconds', delay_seconds,
            'runAt', readpast_instant_arg(run_at),
            'maxAttempts', max_attempts, 'idempotencyKey', idempotency_key, 'uniqueFor', unique_for,
            'groupKey', group_key, 'tags', to_jsonb(tags),
            'expiresAt', readpast_instant_arg(expires_at),
            'webhookUrl', webhook_url, 'traceparent', traceparent, 'tracestate', tracestate,
            'fairnessKey', fairness_key)) AS f
        WHERE f.value <> 'null'::jsonb)) AS e
$fn$;

-- Many jobs in the caller's transaction: jobs is a JSON array of POST /jobs bodies (as the
-- items of POST /jobs/batch). Unlike the HTTP batch, a bad item refuses the whole call
-- (its message starts "jobs[i]: "): in SQL the application's transaction decides.
CREATE FUNCTION readpast_enqueue_many(jobs json)
RETURNS TABLE (job_position integer, job_id bigint, created boolean)
LANGUAGE plpgsql SECURITY DEFINER AS $fn$
DECLARE
    n integer;
    i integer;
    r record;
BEGIN
    -- as readpast_enqueue_item checks, for the whole array: PostgreSQL cannot take its items apart
    IF position('\u0000' IN CAST(jobs AS text)) > 0 AND CAST(jobs AS text) ~ '(^|[^\\])(\\\\)*\\u0000' THEN
        PERFORM readpast_refuse('', 'A string holds \u0000 (NUL), which PostgreSQL''s JSON functions cannot read: '
                                    || 'the SQL enqueue takes none (POST /jobs takes it in a payload).');
    END IF;
    n := CASE WHEN json_typeof(jobs) = 'array' THEN json_array_length(jobs) END;
    IF n IS NULL OR n < 1 OR n > readpast_setting_int('batch_max', 1000) THEN
        PERFORM readpast_refuse('', format('''jobs'' must hold 1-%s items.', readpast_setting_int('batch_max', 1000)));
    END IF;
    -- (a FOR loop's variable is its own: the position is assigned to the OUT column)
    FOR i IN 0 .. n - 1 LOOP
        SELECT * INTO r FROM readpast_enqueue_item(format('jobs[%s]: ', i), jobs -> i);
        job_position := i;
        job_id := r.job_id;
        created := r.created;
        RETURN NEXT;
    END LOOP;
END
$fn$;

-- Fixed search_path (where the tables are; pg_temp last), no PUBLIC execute, and the producer role.
DO $do$
DECLARE
    f text;
BEGIN
    FOR f IN SELECT CAST(CAST(p.oid AS regprocedure) AS text) FROM pg_proc AS p
             WHERE p.pronamespace = CAST(current_schema() AS regnamespace)
               AND p.proname IN ('readpast_refuse', 'readpast_setting_int', 'readpast_json_string',
                                 'readpast_json_integer', 'readpast_utf16_length', 'readpast_free_text',
                                 'readpast_json_instant', 'readpast_instant_arg', 'readpast_instant_text',
                                 'readpast_webhook_url', 'readpast_traceparent', 'readpast_tracestate',
                                 'readpast_unique_digest', 'readpast_enqueue_item', 'readpast_enqueue',
                                 'readpast_enqueue_many') LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'readpast_producer') THEN
        BEGIN
            CREATE ROLE readpast_producer NOLOGIN;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE WARNING 'Readpast could not create the role readpast_producer (no CREATEROLE): '
                'create it and grant it as docs/sql-enqueue.md shows';
        END;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'readpast_producer') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO readpast_producer', current_schema());
        GRANT EXECUTE ON FUNCTION readpast_enqueue(text, text, jsonb, integer, bigint, timestamptz, integer, text, bigint,
                                                   text, text[], timestamptz, text, text, text, text) TO readpast_producer;
        GRANT EXECUTE ON FUNCTION readpast_enqueue_many(json) TO readpast_producer;
    END IF;
END
$do$;
