# The drain's SQL ceiling (sourced by bench/run): pgbench running the broker's own statements,
# each as a generated PL/pgSQL function (the statement file with its fragments in place and each
# :name a parameter), against <prefix>ceiling preloaded with N pending jobs. The sustained
# ceiling (sustained.sh) uses the same functions.

# bench_claim(...) / bench_ack_claim(...) / bench_insert_many(...): the broker's statement as a
# function, each :name replaced by the function parameter p_name. PL/pgSQL caches the plan like a
# prepared statement (Readpast's pgjdbc prepares server-side); BENCH_CEILING_LANG=sql makes a
# plain SQL function instead. The parameters' types and the result's columns are what
# PostgreSQL infers from the statement itself (PREPARE, psql's \gdesc), so that a statement whose
# parameters or columns change needs no edit here, only a value for a new parameter (ceiling_arg).
make_function() { # $1 function name, $2 statement file; sets fn_params (names, signature order), fn_types and fn_coldefs
  local db="${mf_db:-$DB_CEIL}" body numbered types sig="" i=0 p
  # the statement as the broker runs it (StatementCatalog: fragments in place, templates filled,
  # through the Driver's "statement" mode), but for promote_due.sql: a statement of its own, which
  # the broker sends ahead in the same round trip and a function body of one query cannot hold;
  # then without comments
  body="$("$JAVA" -cp "$driver_cp" Driver statement --file "$2")" || fail "$2: the Driver could not expand it"
  body="$(sed -e '/^[[:space:]]*--/d' <<<"$body")"
  # shellcheck disable=SC2207
  fn_params=($(grep -oP '(?<![:\w]):[A-Za-z_]\w*' <<<"$body" | sort -u | tr -d ':'))
  for p in "${fn_params[@]}"; do
    ceiling_arg "$p" :lim >/dev/null \
      || fail "$2 has a parameter :$p that the ceiling does not know: give it a value in bench/lib/ceiling.sh (ceiling_arg)"
  done
  numbered="$(P="${fn_params[*]}" perl -pe 'BEGIN { my $i = 0; %n = map { $_ => ++$i } split / /, $ENV{P} }
      s/(?<![:\w]):([A-Za-z_]\w*)/\$$n{$1}/g' <<<"$body")"
  types="$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" 2>&1 <<SQL
PREPARE bench_probe AS $numbered;
SELECT array_to_string(parameter_types, '|') FROM pg_prepared_statements WHERE name = 'bench_probe';
SQL
)" || fail "$2: PostgreSQL could not prepare it to learn its parameters' types: $types"
  local -a ta=()
  IFS='|' read -r -a ta <<<"$types"
  [ "${#ta[@]}" = "${#fn_params[@]}" ] || fail "$2: ${#fn_params[@]} parameters, PostgreSQL typed ${#ta[@]} ($types)"
  fn_types=("${ta[@]}")
  for p in "${fn_params[@]}"; do sig="${sig:+$sig, }p_$p ${ta[$i]}"; i=$((i + 1)); done
  fn_coldefs="$(printf '%s\n\\gdesc\n' "$numbered" | psql -X -At -F '|' -v ON_ERROR_STOP=1 -d "$db" \
    | awk -F'|' '{ printf "%s\"%s\" %s", (NR > 1 ? ", " : ""), $1, $2 }')" \
    || fail "$2: psql could not describe its result"
  [ -n "$fn_coldefs" ] || fail "$2: psql described no result columns"
  body="$(perl -pe 's/(?<![:\w]):([A-Za-z_]\w*)/p_$1/g' <<<"$body")"
  # a statement Readpast runs with a generic plan (its "-- readpast: generic-plan" line) runs so
  # here too: the function's SET applies to the plans it caches
  local set=""
  grep -q '^-- readpast: generic-plan' "$sqldir/$2" && set="SET plan_cache_mode = force_generic_plan "
  if [ "$ceiling_lang" = plpgsql ]; then
    printf 'CREATE FUNCTION %s(%s)\nRETURNS SETOF record LANGUAGE plpgsql %sAS $fn$\nBEGIN\nRETURN QUERY\n%s;\nEND\n$fn$;\n' \
      "$1" "$sig" "$set" "$body"
  else
    printf 'CREATE FUNCTION %s(%s)\nRETURNS SETOF record LANGUAGE sql %sAS $fn$\n%s\n$fn$;\n' "$1" "$sig" "$set" "$body"
  fi > "$tmp/$1.sql"
  psqlq -d "$db" -f "$tmp/$1.sql"
}
make_function_in() { local mf_db="$1"; shift; make_function "$@"; } # $1 database, then as make_function

# pgbench's argument for a statement's parameter: the ceiling's clients each play one worker that
# claims $b at a time (its -D values: ceiling_defines). $1 the parameter, $2 the limit (":lim", or
# 0 for an acknowledge-only call). Returns 1 for a parameter it does not know.
ceiling_arg() {
  case "$1" in
    worker_id|queues|locked_queues|lease_seconds|default_lease_seconds|modified_by|items) echo ":$1" ;;
    limit) echo "$2" ;;
    # claims merged into one statement (readpast.merging.claims): here always one claimer
    claimers) if [ "$2" = 0 ]; then echo ":claimers_none"; else echo ":claimers"; fi ;;
    jobs) echo "(SELECT j FROM bench_items)" ;;
    types) echo "NULL" ;;
    *) return 1 ;;
  esac
}
ceiling_defines() {
  printf '%s\n' -D worker_id=bench-ceiling -D 'queues=["bench"]' -D 'locked_queues=[]' -D lim="$b" -D lease_seconds=60 \
    -D default_lease_seconds=30 -D modified_by=bench -D 'items=[]' \
    -D "claimers=[{\"n\":1,\"worker_id\":\"bench-ceiling\",\"lease_seconds\":60,\"lo\":0,\"hi\":$b}]" -D 'claimers_none=[]'
}
# the call of the function just made (fn_params, fn_coldefs), with limit $2, as "FROM" wants it
# (each argument cast to its parameter's type, as the broker's statement casts what it is sent)
fn_call() { # $1 function name, $2 the limit
  local args="" i
  for i in "${!fn_params[@]}"; do args="${args:+$args, }CAST($(ceiling_arg "${fn_params[$i]}" "$2") AS ${fn_types[$i]})"; done
  echo "$1($args) AS t($fn_coldefs)"
}

# bench_ack_claim(...) in database $1, and its pgbench use: ack_call (the call, claiming :lim),
# ack_call0 (acknowledging only) and ack_pick (the next call's items from this call's rows)
make_ack_claim() {
  make_function_in "$1" bench_ack_claim job_ack_claim.sql
  ack_call="$(fn_call bench_ack_claim :lim)"
  ack_call0="$(fn_call bench_ack_claim 0)"
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
      echo "$ack_pick FROM $ack_call \\gset"
      echo "\\else"
      echo "$ack_pick FROM $ack_call0 \\gset"
      echo "\\endif"
    } > "$tmp/ceiling.pgbench"
    ceiling_sql="job_ack_claim (ack the previous batch + claim the next, one statement, autocommit)"
  else
    make_function bench_claim job_claim.sql
    # (the queue is uncapped: Readpast runs the claim alone, in autocommit, without queue_lock_capped)
    {
      echo "SELECT COALESCE(json_agg(json_build_object('id', t.id, 'lease_id', t.lease_id, 'result', NULL))"
      echo "  FILTER (WHERE t.id IS NOT NULL), '[]') AS items"
      echo "FROM $(fn_call bench_claim :lim) \\gset"
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
  local -a defs; mapfile -t defs < <(ceiling_defines)
  { time run_child timeout 900 "${app_prefix[@]}" pgbench -n -M prepared -c "$w" -j 2 -t "$tx_per_client" -f "$tmp/ceiling.pgbench" \
    "${defs[@]}" -D iter=0 $DB_CEIL > "$tmp/pgbench.out" 2>&1 ; } 2> "$tmp/pgbench.time" \
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
