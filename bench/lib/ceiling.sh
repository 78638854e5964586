# The drain's SQL ceiling (sourced by bench/run): pgbench running the broker's own statements,
# each as a generated PL/pgSQL function (the statement file with its fragments in place and each
# :name a parameter), against <prefix>ceiling preloaded with N pending jobs. The sustained
# ceiling (sustained.sh) uses the same functions.

# bench_claim(...) / bench_ack_claim(...): the statement with each :name replaced by the function
# parameter p_name. PL/pgSQL caches the plan like a prepared statement (Readpast's pgjdbc
# prepares server-side); BENCH_CEILING_LANG=sql makes a plain SQL function instead.
make_function() { # $1 function name, $2 statement file, $3 expected parameters, $4 signature, $5 return type
  local body params
  # the statement with its fragments in place (include/<name>.sql), but for promote_due.sql: a
  # statement of its own, which the broker sends ahead in the same round trip and a function
  # body of one query cannot hold; then without comments
  body="$(perl -pe 'if (/^\s*-- include: ([a-z0-9_]+\.sql)\s*$/ && $1 ne "promote_due.sql") {
      local $/; open(my $f, "<", "'"$sqldir"'/include/$1") or die "include $1: $!"; $_ = <$f> . "\n"; close $f }' "$sqldir/$2" \
    | sed -e '/^[[:space:]]*--/d')"
  params="$(grep -oP '(?<![:\w]):[A-Za-z_]\w*' <<<"$body" | sort -u | tr -d ':' | tr '\n' ' ')"
  [ "$params" = "$3" ] || fail "$2 parameters changed: [$params], expected [$3]"
  body="$(perl -pe 's/(?<![:\w]):([A-Za-z_]\w*)/p_$1/g' <<<"$body")"
  # a statement Readpast runs with a generic plan (its "-- readpast: generic-plan" line) runs so
  # here too: the function's SET applies to the plans it caches
  local set=""
  grep -q '^-- readpast: generic-plan' "$sqldir/$2" && set="SET plan_cache_mode = force_generic_plan "
  if [ "$ceiling_lang" = plpgsql ]; then
    printf 'CREATE FUNCTION %s(%s)\nRETURNS %s LANGUAGE plpgsql %sAS $fn$\nBEGIN\nRETURN QUERY\n%s;\nEND\n$fn$;\n' \
      "$1" "$4" "$5" "$set" "$body"
  else
    printf 'CREATE FUNCTION %s(%s)\nRETURNS %s LANGUAGE sql %sAS $fn$\n%s\n$fn$;\n' "$1" "$4" "$5" "$set" "$body"
  fi > "$tmp/$1.sql"
  psqlq -d "${mf_db:-$DB_CEIL}" -f "$tmp/$1.sql"
}
make_function_in() { local mf_db="$1"; shift; make_function "$@"; } # $1 database, then as make_function
# bench_ack_claim(...) in database $1, and its pgbench use: job_coldefs (readpast_job's columns, for
# "AS t(...)" of a SETOF record function), ack_call (the call, LIMIT_ standing for the limit) and
# ack_pick (the next call's items from this call's rows)
make_ack_claim() {
  make_function_in "$1" bench_ack_claim job_ack_claim.sql \
    "default_lease_seconds items lease_seconds limit modified_by queues types worker_id " \
    "p_items text, p_worker_id text, p_queues text, p_limit integer, p_lease_seconds integer,
    p_default_lease_seconds integer, p_modified_by text, p_types text DEFAULT NULL" "SETOF record"
  job_coldefs="$(pgval -d "$1" -c "select string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), ', '
    order by attnum) from pg_attribute where attrelid = 'readpast_job'::regclass and attnum > 0 and not attisdropped")"
  ack_call="bench_ack_claim(:items, :worker_id, :queues, LIMIT_, :lease_seconds, :default_lease_seconds, :modified_by)
  AS t(acked text, n bigint, $job_coldefs)"
  ack_pick="SELECT COALESCE(json_agg(json_build_object('id', t.id, 'lease_id', t.lease_id, 'result', NULL))
  FILTER (WHERE t.id IS NOT NULL), '[]') AS items"
}

migrate() { # the broker's PostgreSQL migrations into database $1
  local f
  for f in $(ls "$migdir"/V*__*.sql | sort -V); do psqlq -d "$1" -f "$f"; done
}

# The drain ceiling: W pgbench clients drain N preloaded jobs with B per statement. Sets ceil_*.
drain_ceiling() {
  log "ceiling: $DB_CEIL, schema from $migdir, $n pending jobs"
  fresh_db $DB_CEIL
  migrate $DB_CEIL

  strip() { sed -e '/^[[:space:]]*--/d' "$1"; }
  tx_per_client=$(( (n + w * b - 1) / (w * b) + 2 ))
  if [ "$ack_claim" = 1 ]; then
    # As Readpast's workers do: each batch is one statement, job_ack_claim, acknowledging the
    # client's previous batch and claiming the next (the queue is uncapped); the last
    # transaction of each client only acknowledges (limit 0).
    make_ack_claim $DB_CEIL
    {
      echo "\\set iter :iter + 1"
      echo "\\if :iter < $tx_per_client"
      echo "$ack_pick FROM ${ack_call/LIMIT_/:lim} \\gset"
      echo "\\else"
      echo "$ack_pick FROM ${ack_call/LIMIT_/0} \\gset"
      echo "\\endif"
    } > "$tmp/ceiling.pgbench"
    ceiling_sql="job_ack_claim (ack the previous batch + claim the next, one statement, autocommit)"
  else
    make_function bench_claim job_claim.sql \
      "default_lease_seconds lease_seconds limit locked_queues modified_by queues types worker_id " \
      "p_worker_id text, p_queues text, p_locked_queues text, p_limit integer, p_lease_seconds integer,
      p_default_lease_seconds integer, p_modified_by text, p_types text DEFAULT NULL" "SETOF readpast_job"
    # (the queue is uncapped: Readpast runs the claim alone, in autocommit, without queue_lock_capped)
    {
      echo "SELECT COALESCE(json_agg(json_build_object('id', id, 'lease_id', lease_id, 'result', NULL)), '[]') AS items"
      echo "FROM bench_claim(:worker_id, :queues, :locked_queues, :lim, :lease_seconds, :default_lease_seconds, :modified_by) \\gset"
      strip "$sqldir/job_complete_many.sql"; echo ";"
    } > "$tmp/ceiling.pgbench"
    ceiling_sql="job_claim then job_complete_many (each in autocommit)"
  fi

  psqlq -d $DB_CEIL <<SQL
INSERT INTO readpast_queue (name) VALUES ('bench');
INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at)
SELECT 'bench', 'noop', '{}', 5, now() FROM generate_series(1, $n);
ANALYZE;
CHECKPOINT;
SQL
  log "ceiling: pgbench -c $w -j 2 -t $tx_per_client (B=$b): $ceiling_sql"
  local pg0 pg1 busy0 busy1 c0 c1
  pg0="$(pg_ticks)"; busy0="$(busy_ticks)"; c0=$(date +%s.%N)
  TIMEFORMAT='%U %S'
  { time run_child timeout 900 "${app_prefix[@]}" pgbench -n -M prepared -c "$w" -j 2 -t "$tx_per_client" -f "$tmp/ceiling.pgbench" \
    -D worker_id=bench-ceiling -D 'queues=["bench"]' -D 'locked_queues=[]' -D lim="$b" -D lease_seconds=60 \
    -D default_lease_seconds=30 -D modified_by=bench -D iter=0 -D 'items=[]' $DB_CEIL > "$tmp/pgbench.out" 2>&1 ; } 2> "$tmp/pgbench.time" \
    || { cat "$tmp/pgbench.out" >&2; fail "pgbench"; }
  c1=$(date +%s.%N); busy1="$(busy_ticks)"; pg1="$(pg_ticks)"
  check_pg
  local ceil_archived ceil_left
  ceil_archived="$(pgval -d $DB_CEIL -c "select count(*) from readpast_job_archive where queue = 'bench' and status = 3")"
  ceil_left="$(pgval -d $DB_CEIL -c "select count(*) from readpast_job")"
  [ "$ceil_archived" = "$n" ] && [ "$ceil_left" = 0 ] \
    || { cat "$tmp/pgbench.out" >&2; fail "ceiling: $ceil_archived of $n jobs archived, $ceil_left left in readpast_job"; }
  ceil_s="$(calc %.3f "$c1 - $c0")"
  ceil_jps="$(calc %.1f "$ceil_archived / ($c1 - $c0)")"
  ceil_pg_cpu="$(calc %.2f "($pg1 - $pg0) / $CLK_TCK")"
  ceil_pg_cpu_k="$(calc %.4f "($pg1 - $pg0) / $CLK_TCK / ($n / 1000)")"
  ceil_client_k="$(awk -v n="$n" '{ printf "%.4f", ($1 + $2) / (n / 1000) }' "$tmp/pgbench.time")"
  ceil_other="$(awk -v b="$((busy1 - busy0))" -v p="$((pg1 - pg0))" -v hz="$CLK_TCK" -v s="$ceil_s" \
    '{ o = (b - p) / hz - ($1 + $2); if (o < 0) o = 0; printf "%.2f CPU-s (%.2f cores)", o, o / s }' "$tmp/pgbench.time")"
  ceil_tps_line="$(grep -E '^tps' "$tmp/pgbench.out" | head -1)"
  ceil_lat_line="$(grep -E '^latency average' "$tmp/pgbench.out" | head -1)"
  log "ceiling: $ceil_archived jobs in ${ceil_s}s = $ceil_jps jobs/s, PostgreSQL ${ceil_pg_cpu} CPU-s"
  drop_db $DB_CEIL
}
