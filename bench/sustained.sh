# The sustained mode of bench/run (sourced by it; uses its helpers and settings): producers and
# workers at once, jobs of about $sus_payload bytes of JSON, the backlog held steady.
#
#   sustained_ceiling   pgbench, the same statements as the broker (job_insert_many of B jobs, then
#                       job_ack_claim acknowledging the client's previous B and claiming the next B;
#                       each a generated PL/pgSQL function, autocommit) against a backlog of
#                       $sus_backlog pending jobs, at 2, 4, 8 and 16 clients for $sus_ceil_s s each.
#                       Inserting as many as it claims keeps the backlog steady. The ceiling is the
#                       best of the four.
#   sustained_readpast  one broker: the maximum (producers keep the backlog at $sus_backlog, workers
#                       never wait), then fixed offered rates of 50% and 80% of that maximum with
#                       enqueue-to-claim latency (Driver.java sustained), each $sus_s s after
#                       $sus_warm s untimed. $sus_runs50 runs at 50% (the p99 target holds in each).
#   sustained_three     three brokers on one database behind HAProxy (round robin per request),
#                       the maximum, as above.
#   sustained_graphile  graphile-worker in the same mode (bench/peers/node/graphile-sustained.mjs).
#
# Each sets sus_* variables that sustained_report prints as the report's first section.

sus_s="${BENCH_SUSTAINED_SECONDS:-$([ "$quick" = 1 ] && echo 20 || echo 60)}"
sus_warm="${BENCH_SUSTAINED_WARMUP:-$([ "$quick" = 1 ] && echo 10 || echo 15)}"
sus_ceil_s="${BENCH_CEILING_SECONDS:-$([ "$quick" = 1 ] && echo 10 || echo 20)}"
sus_payload="${BENCH_PAYLOAD_BYTES:-1024}"
sus_backlog="${BENCH_BACKLOG:-20000}"
sus_producers="${BENCH_SUSTAINED_PRODUCERS:-3}"
sus_chunk="${BENCH_SUSTAINED_CHUNK:-500}"
sus_runs50="${BENCH_RUNS50:-3}"
sus_clients="${BENCH_CEILING_CLIENTS:-2 4 8 16}"
for v in sus_s sus_warm sus_ceil_s sus_payload sus_backlog sus_producers sus_chunk sus_runs50; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "bench/run: $v must be a positive integer (got '${!v}')" >&2; exit 64; }
done
DB_SUS="${dbp}sustained" DB_SUS3="${dbp}sustained3" DB_SUSC="${dbp}sustained_ceiling"
DBS="$DBS $DB_SUS $DB_SUS3 $DB_SUSC"
extra_pids=""  # the second and third brokers, and HAProxy (bench/run's cleanup stops them)

# a job item as the broker passes it to job_insert_many (JobInserts): payload as JSON text
sus_item_json() {
  python3 - "$sus_payload" "$1" <<'PY'
import json, sys
size, queue = int(sys.argv[1]), sys.argv[2]
pad = "x" * max(0, size - len('{"t":1234567890123456789,"pad":""}'))
payload = json.dumps({"t": 1234567890123456789, "pad": pad}, separators=(",", ":"))
print(json.dumps({"queue": queue, "type": "work", "payload": payload, "priority": 0,
                  "default_max_attempts": 5, "delay_ms": 0}, separators=(",", ":")))
PY
}

sustained_ceiling() {
  sus_ceil_lines=()
  sus_ceil_best=0 sus_ceil_best_c=0
  if [ -n "${ext_url:-}" ]; then
    # pgbench speaks PostgreSQL only: the same statements through JDBC instead
    sustained_jdbc_ceiling
    return 0
  fi
  local c item insert_call out s0 s1 a0 a1 pg0 pg1 jps
  item="$(sus_item_json bench)"
  for c in $sus_clients; do
    fresh_db $DB_SUSC
    for f in $(ls "$migdir"/V*__*.sql | sort -V); do psqlq -d $DB_SUSC -f "$f"; done
    make_function_in $DB_SUSC bench_insert_many job_insert_many.sql "jobs " "p_jobs text" "SETOF record"
    make_ack_claim $DB_SUSC
    # the batch's JSON (B items of ~$sus_payload bytes) is one stored value, read per transaction
    # (pgbench cannot pass a value that long); stored uncompressed, as a request body arrives
    psqlq -d $DB_SUSC <<SQL
CREATE TABLE bench_items (j text);
ALTER TABLE bench_items ALTER COLUMN j SET STORAGE EXTERNAL;
INSERT INTO bench_items SELECT '[' || string_agg('$item', ',') || ']' FROM generate_series(1, $b);
INSERT INTO readpast_queue (name) VALUES ('bench');
INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at)
SELECT 'bench', 'work', (j::jsonb -> 0 ->> 'payload'), 5, now()
FROM bench_items CROSS JOIN generate_series(1, $sus_backlog);
VACUUM ANALYZE;
CHECKPOINT;
SQL
    insert_call="SELECT count(*) AS inserted FROM bench_insert_many((SELECT j FROM bench_items)) AS t(ord bigint, $job_coldefs) \\gset"
    { echo "$insert_call"; echo "$ack_pick FROM ${ack_call/LIMIT_/:lim} \\gset"; } > "$tmp/sus-ceiling.pgbench"
    a0="$(pgval -d $DB_SUSC -c "select count(*) from readpast_job_archive")"
    pg0="$(pg_ticks)"; s0=$(date +%s.%N)
    out="$tmp/sus-ceiling-$c.out"
    run_child timeout $((sus_ceil_s + 120)) pgbench -n -M prepared -c "$c" -j "$(( c < 2 ? c : 2 ))" -T "$sus_ceil_s" \
      -f "$tmp/sus-ceiling.pgbench" -D worker_id=bench-ceiling -D 'queues=["bench"]' -D lim="$b" -D lease_seconds=60 \
      -D default_lease_seconds=30 -D modified_by=bench -D 'items=[]' $DB_SUSC > "$out" 2>&1 \
      || { cat "$out" >&2; fail "sustained ceiling, $c clients"; }
    s1=$(date +%s.%N); pg1="$(pg_ticks)"
    a1="$(pgval -d $DB_SUSC -c "select count(*) from readpast_job_archive")"
    local left; left="$(pgval -d $DB_SUSC -c "select count(*) from readpast_job where status = 0")"
    jps="$(calc %.1f "($a1 - $a0) / ($s1 - $s0)")"
    sus_ceil_lines+=("RESULT sustained_ceiling clients=$c seconds=$(calc %.1f "$s1 - $s0") jobs=$((a1 - a0)) jobs_per_s=$jps pending_end=$left pg_cpu_s=$(calc %.2f "($pg1 - $pg0) / $CLK_TCK") pg_cpu_s_per_1k=$(calc %.4f "($pg1 - $pg0) / $CLK_TCK / (($a1 - $a0) / 1000)") $(grep -E '^tps' "$out" | head -1 | tr -s ' ' | sed 's/ (without initial connection time)//; s/ = /=/')")
    log "sustained ceiling: ${sus_ceil_lines[-1]}"
    if awk -v a="$jps" -v b="$sus_ceil_best" 'BEGIN { exit !(a > b) }'; then sus_ceil_best="$jps" sus_ceil_best_c="$c"; fi
    drop_db $DB_SUSC
  done
  [ "${BENCH_JDBC_CEILING:-0}" != 1 ] || sustained_jdbc_ceiling
}

# The ceiling through JDBC (Driver.java ceiling): the broker's own statement files, loaded by its
# StatementCatalog, at the same client counts, batch, payload and backlog as the pgbench ceiling,
# in queue bench-ceiling. With BENCH_DB_URL it is the ceiling (a broker started and stopped first
# migrates that database); on the bench's PostgreSQL, BENCH_JDBC_CEILING=1 also runs it beside
# pgbench, to compare the two runners (reported, not used in the ratios).
sustained_jdbc_ceiling() {
  local db_url="${ext_url:-jdbc:postgresql://$PGHOST:$PGPORT/$DB_SUSC}" out="$tmp/sus-jdbc-ceiling.out" line jps c
  if [ -n "${ext_url:-}" ]; then
    start_broker "$DB_SUSC" && stop_broker
  else
    fresh_db $DB_SUSC
    for f in $(ls "$migdir"/V*__*.sql | sort -V); do psqlq -d $DB_SUSC -f "$f"; done
  fi
  run_child timeout $(( (sus_ceil_s + 120) * $(wc -w <<<"$sus_clients") )) "$JAVA" -cp "$app/lib/main/*:$app/app/*" \
    "$here/Driver.java" ceiling --jdbc "$db_url" --db-user "${BENCH_DB_USERNAME:-$PGUSER}" \
    --db-password "${BENCH_DB_PASSWORD:-${PGPASSWORD:-}}" --clients "$sus_clients" --seconds "$sus_ceil_s" \
    --batch "$b" --backlog "$sus_backlog" --payload-bytes "$sus_payload" --clk-tck "$CLK_TCK" \
    $([ -z "${ext_url:-}" ] && echo --postmaster "$postmaster") > "$out" \
    || fail "sustained ceiling through JDBC"
  while read -r line; do
    sus_ceil_lines+=("$line")
    log "sustained ceiling (JDBC): $line"
    if [ -n "${ext_url:-}" ]; then
      jps="$(kv "$line" jobs_per_s)" c="$(kv "$line" clients)"
      if awk -v a="$jps" -v b="$sus_ceil_best" 'BEGIN { exit !(a > b) }'; then sus_ceil_best="$jps" sus_ceil_best_c="$c"; fi
    fi
  done < <(grep '^RESULT sustained_ceiling' "$out")
  [ -n "${ext_url:-}" ] || drop_db $DB_SUSC
}

sus_driver() { # $1 label, $2 rate (0: the maximum), $3 queue, $4 broker pids (comma list)
  driver sustained --label "$1" --rate "$2" --queue "$3" --workers "$w" --batch "$b" --producers "$sus_producers" \
    --chunk "$sus_chunk" --payload-bytes "$sus_payload" --backlog "$sus_backlog" --seconds "$sus_s" \
    --warmup-seconds "$sus_warm" --broker-pid "$4" --postmaster "$postmaster" > "$tmp/sus-$1.out" \
    || fail "driver sustained $1"
  grep '^RESULT sustained' "$tmp/sus-$1.out"
}

# between the phases on one broker, as before each drain: the last phase's dead rows and WAL
# must not weigh on the next one
sus_settle() { [ -n "${ext_url:-}" ] || psqlq -d $DB_SUS -c 'VACUUM ANALYZE readpast_job' -c CHECKPOINT; }

sustained_readpast() {
  fresh_db $DB_SUS
  start_broker $DB_SUS
  log "sustained: the maximum ($sus_s s after $sus_warm s untimed; backlog $sus_backlog, $sus_payload-byte payloads)"
  sus_max_line="$(sus_driver max 0 sus_max "$broker_pid")"
  log "sustained: $sus_max_line"
  sus_max="$(kv "$sus_max_line" jobs_per_s)"
  sus_rate_lines=()
  local i r
  for i in $(seq 1 "$sus_runs50"); do
    r="$(calc %.0f "$sus_max * 0.5")"
    sus_settle
    sus_rate_lines+=("$(sus_driver "p50load$i" "$r" "sus_50_$i" "$broker_pid")")
    log "sustained 50% ($i): ${sus_rate_lines[-1]}"
  done
  r="$(calc %.0f "$sus_max * 0.8")"
  sus_settle
  sus_rate_lines+=("$(sus_driver p80load "$r" sus_80 "$broker_pid")")
  log "sustained 80%: ${sus_rate_lines[-1]}"
  sus_rss_kb="$(awk '/VmHWM/ { print $2 }' /proc/$broker_pid/status 2>/dev/null || echo '?')"
  stop_broker
  drop_db $DB_SUS
}

sustained_native() { # the maximum and 50% once more on the native binary (BENCH_NATIVE)
  sus_native_lines=()
  [ -n "${BENCH_NATIVE:-}" ] || return 0
  fresh_db $DB_SUS
  start_broker $DB_SUS "$BENCH_NATIVE"
  sus_native_lines+=("$(sus_driver native_max 0 sus_nmax "$broker_pid")")
  local nmax; nmax="$(kv "${sus_native_lines[0]}" jobs_per_s)"
  sus_native_lines+=("$(sus_driver native_p50load "$(calc %.0f "$nmax * 0.5")" sus_n50 "$broker_pid")")
  sus_native_rss_kb="$(awk '/VmHWM/ { print $2 }' /proc/$broker_pid/status 2>/dev/null || echo '?')"
  log "sustained native: ${sus_native_lines[*]}"
  stop_broker
  drop_db $DB_SUS
}

sustained_three() {
  sus_three_line=""
  [ "${BENCH_THREE:-1}" = 1 ] || { sus_three_line="SKIPPED three brokers: BENCH_THREE=0"; return 0; }
  command -v haproxy >/dev/null || { sus_three_line="SKIPPED three brokers: haproxy is not installed (apt-get install haproxy)"; log "$sus_three_line"; return 0; }
  fresh_db $DB_SUS3
  local pids="" ports="" i lb
  for i in 1 2 3; do
    start_broker $DB_SUS3
    pids="${pids:+$pids,}$broker_pid"
    ports="$ports ${url##*:}"
    extra_pids="$extra_pids $broker_pid"
    broker_pid=""  # each broker is stopped through extra_pids
  done
  lb="$(free_port)"
  {
    echo "global"
    echo "  maxconn 4096"
    echo "defaults"
    echo "  mode http"
    echo "  timeout connect 5s"
    echo "  timeout client 90s"
    echo "  timeout server 90s"
    echo "frontend readpast"
    echo "  bind 127.0.0.1:$lb"
    echo "  default_backend brokers"
    echo "backend brokers"
    echo "  balance roundrobin"
    i=0; for p in $ports; do i=$((i + 1)); echo "  server b$i 127.0.0.1:$p"; done
  } > "$tmp/haproxy.cfg"
  haproxy -q -f "$tmp/haproxy.cfg" -db > "$tmp/haproxy.log" 2>&1 &
  local hp=$!
  extra_pids="$extra_pids $hp"
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$lb/q/health/ready" >/dev/null && break; sleep 0.1; done
  local one_url="$url"
  url="http://127.0.0.1:$lb"
  log "sustained: three brokers (pids $pids) behind HAProxy on $url"
  sus_three_line="$(sus_driver three_max 0 sus_three "$pids,$hp")"
  url="$one_url"
  log "sustained three: $sus_three_line"
  stop_extra
  drop_db $DB_SUS3
}

stop_extra() {
  local p
  for p in $extra_pids; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $extra_pids; do
    for _ in $(seq 1 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  extra_pids=""
}

sustained_graphile() {
  sus_graphile_line=""
  [ -z "${ext_url:-}" ] || { sus_graphile_line="SKIPPED graphile-worker: BENCH_DB_URL is set"; return 0; }
  case " $peer_list " in *" graphile-worker "*|*" graphile "*) ;; *) sus_graphile_line="SKIPPED graphile-worker: not in the peers of this run"; return 0 ;; esac
  local pdb=${dbp}graphile out="$tmp/peer-graphile-sustained.out"
  peer_dbs="$peer_dbs $pdb"
  log "sustained: graphile-worker ($sus_s s after $sus_warm s, backlog $sus_backlog, $sus_payload-byte payloads)"
  if BENCH_JDBC_URL="jdbc:postgresql://$PGHOST:$PGPORT/postgres" BENCH_DB_USER="$PGUSER" BENCH_DB_NAME="$pdb" \
      BENCH_SUSTAINED_SECONDS="$sus_s" BENCH_SUSTAINED_WARMUP="$sus_warm" BENCH_PAYLOAD_BYTES="$sus_payload" \
      BENCH_BACKLOG="$sus_backlog" BENCH_PRODUCERS="$sus_producers" \
      run_child "$here/peers/run-peer.sh" graphile-sustained 1 "$w" > "$out" 2> "$out.err"; then
    sus_graphile_line="$(grep '^RESULT sustained peer=' "$out" | tail -1)"
  fi
  [ -n "$sus_graphile_line" ] || sus_graphile_line="FAILED graphile-worker sustained: $(grep -m1 FAILED "$out.err" || tail -1 "$out.err")"
  log "sustained graphile-worker: $sus_graphile_line"
  drop_db "$pdb"
}

sustained_report() {
  local g_jps="" line r
  [[ "$sus_graphile_line" == RESULT* ]] && g_jps="$(kv "$sus_graphile_line" jobs_per_s)"
  sus_ratio_ceiling="n/a (no ceiling)"
  [ "$sus_ceil_best" != 0 ] && sus_ratio_ceiling="$(calc %.2f "$sus_max / $sus_ceil_best")"
  sus_ratio_graphile="n/a (graphile-worker sustained not run or failed)"
  [ -n "$g_jps" ] && sus_ratio_graphile="$(calc %.2f "$sus_max / $g_jps")"
  echo "## Sustained: producers and workers at once, $sus_payload-byte JSON payloads, $sus_s s timed after $sus_warm s"
  echo
  echo "Producers: $sus_producers x POST /jobs/batch of up to $sus_chunk jobs; workers: $w x POST /claim (limit $b, waitSeconds 1), each batch acknowledged with the next claim. \"max\": the producers keep the backlog at about $sus_backlog jobs, so workers never wait (its latency is the backlog's wait, not the broker's); the rate rows offer a fixed rate (open loop) and report enqueue-to-claim latency of every job sent in the window."
  echo
  echo "| system | offered jobs/s | completed jobs/s | ratio to ceiling | backlog start / end (min-max) | p50 ms | p99 ms | max ms | PostgreSQL CPU-s / 1000 | broker CPU-s / 1000 |"
  echo "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
  local ceil_runner="pgbench"
  [ -n "${ext_url:-}" ] && ceil_runner="JDBC, Driver.java ceiling"
  [ "$sus_ceil_best" = 0 ] || echo "| ceiling ($ceil_runner, job_insert_many + job_ack_claim, best of $(echo $sus_clients | tr ' ' '/') clients: $sus_ceil_best_c) | - | $sus_ceil_best | 1.00 | $sus_backlog | - | - | - | - | - |"
  row() { # $1 name, $2 RESULT line
    echo "| $1$( [ "$(kv "$2" missing)" != 0 ] && echo " (**not sustained**: $(kv "$2" missing) jobs of the window unclaimed 15 s after it)") | $( [ "$(kv "$2" rate)" = 0.0 ] && echo "-" || kv "$2" offered_jobs_per_s) | $(kv "$2" jobs_per_s) | $( [ "$sus_ceil_best" = 0 ] && echo - || calc %.2f "$(kv "$2" jobs_per_s) / $sus_ceil_best") | $(kv "$2" backlog_start) / $(kv "$2" backlog_end) ($(kv "$2" backlog_min)-$(kv "$2" backlog_max)) | $(kv "$2" p50_ms) | $(kv "$2" p99_ms) | $(kv "$2" max_ms) | $(kv "$2" pg_cpu_s_per_1k) | $(kv "$2" broker_cpu_s_per_1k) |"
  }
  row "readpast, maximum (one broker)" "$sus_max_line"
  for line in "${sus_rate_lines[@]}"; do
    r="$(kv "$line" label)"
    row "readpast, ${r/load/ load}" "$line"
  done
  if [[ "$sus_three_line" == RESULT* ]]; then
    row "readpast, three brokers behind HAProxy, maximum (broker CPU: the three and HAProxy)" "$sus_three_line"
  fi
  for line in "${sus_native_lines[@]}"; do row "readpast native, $(kv "$line" label)" "$line"; done
  if [ -n "$g_jps" ]; then
    echo "| graphile-worker $(kv "$sus_graphile_line" version), maximum (jobs counted when their handler ran) | - | $g_jps | $( [ "$sus_ceil_best" = 0 ] && echo - || calc %.2f "$g_jps / $sus_ceil_best") | $(kv "$sus_graphile_line" backlog_start) / $(kv "$sus_graphile_line" backlog_end) ($(kv "$sus_graphile_line" backlog_min)-$(kv "$sus_graphile_line" backlog_max)) | $(kv "$sus_graphile_line" p50_ms) | $(kv "$sus_graphile_line" p99_ms) | $(kv "$sus_graphile_line" max_ms) | - | - |"
  fi
  echo
  if [ "$sus_ceil_best" = 0 ]; then
    echo "No ceiling: ${sus_ceil_lines[0]:-not run}."
  else
    echo "Ceiling by client count ($sus_ceil_s s each with $sus_backlog pending jobs; each round inserts $b jobs, acknowledges the client's previous $b and claims $b; $([ -z "${ext_url:-}" ] && echo "pgbench on a fresh database; ")JDBC (Driver.java ceiling: the broker's statement files through its StatementCatalog) in queue bench-ceiling$([ -z "${ext_url:-}" ] && echo ", where run, is reported beside pgbench and not in the ratios"):"
    echo
    echo "| runner | clients | completed jobs/s | PostgreSQL CPU-s / 1000 jobs | pending at the end |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    for line in "${sus_ceil_lines[@]}"; do
      echo "| $(kv "$line" runner | grep . || echo pgbench) | $(kv "$line" clients) | $(kv "$line" jobs_per_s) | $(kv "$line" pg_cpu_s_per_1k | grep . || echo -) | $(kv "$line" pending_end) |"
    done
  fi
  echo
  echo "Sustained ratios: Readpast maximum / ceiling **$sus_ratio_ceiling** (target >= 0.8); / graphile-worker **$sus_ratio_graphile** (target >= 1.2)$([[ "$sus_three_line" == RESULT* ]] && echo "; three brokers / one **$(calc %.2f "$(kv "$sus_three_line" jobs_per_s) / $sus_max")** (target >= 1.0)" || echo "; three brokers: ${sus_three_line:-not run}"). p99 at 50% load: $(for line in "${sus_rate_lines[@]}"; do [[ "$(kv "$line" label)" == p50load* ]] && printf '%s ms ' "$(kv "$line" p99_ms)"; done)(target <= 10 ms in each). Broker peak RSS: ${sus_rss_kb:-?} kB."
  echo
}
