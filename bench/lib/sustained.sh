# The sustained phases of bench/run (sourced by it; uses its helpers and settings): producers and
# workers at once, jobs of about $sus_payload bytes of JSON, the backlog held steady. Each runs in
# the current mode (modes.sh), and sustained_all runs them $reps times in every mode of the run:
#
#   sustained_ceiling   pgbench, the same statements as the broker (job_insert_many of B jobs, then
#                       job_ack_claim acknowledging the client's previous B and claiming the next B;
#                       each a generated PL/pgSQL function, autocommit) against a backlog of
#                       $sus_backlog pending jobs, at $sus_clients clients for $sus_ceil_s s each
#                       (with several repetitions, the later ones at the first's best count only:
#                       BENCH_CEILING_SWEEP=every sweeps every time). Inserting as many as it
#                       claims keeps the backlog steady. The ceiling is the best of the counts.
#   sustained_readpast  one broker: the maximum (producers keep the backlog at $sus_backlog, workers
#                       never wait); in the last repetition then, on the same broker, fixed offered
#                       rates of 50% ($sus_runs50 runs: the p99 target holds in each) and 80% of the
#                       mode's median maximum, with enqueue-to-claim latency (Driver sustained), each
#                       $sus_s s after $sus_warm s untimed.
#   sustained_three     three brokers on one database behind HAProxy (round robin per request),
#                       the maximum, as above.
#   sustained_graphile  graphile-worker in the same mode (bench/peers/node/graphile-sustained.mjs).
#
# Each Readpast phase also gives the database's statements per 1000 jobs (pg_stat_statements,
# reset when the timed window starts) and the broker's and PostgreSQL's CPU-s per 1000 jobs.
# Results go to S[<mode>|<what>|<repetition>] (RESULT lines, with mode= and rep= appended), which
# sustained_report and figures.sh read.

sus_s="${BENCH_SUSTAINED_SECONDS:-$([ "$quick" = 1 ] && echo 20 || echo 60)}"
sus_warm="${BENCH_SUSTAINED_WARMUP:-$([ "$quick" = 1 ] && echo 10 || echo 15)}"
sus_ceil_s="${BENCH_CEILING_SECONDS:-$([ "$quick" = 1 ] && echo 10 || echo 20)}"
sus_payload="${BENCH_PAYLOAD_BYTES:-1024}"
sus_backlog="${BENCH_BACKLOG:-20000}"
sus_producers="${BENCH_SUSTAINED_PRODUCERS:-3}"
sus_chunk="${BENCH_SUSTAINED_CHUNK:-500}"
sus_runs50="${BENCH_RUNS50:-$([ "$quick" = 1 ] && echo 1 || echo 3)}"
sus_p80="${BENCH_P80:-$([ "$quick" = 1 ] && echo 0 || echo 1)}"
sus_clients="${BENCH_CEILING_CLIENTS:-$([ "$quick" = 1 ] && echo "2 8" || echo "2 4 8 16")}"
sus_ceil_sweep="${BENCH_CEILING_SWEEP:-first}"
for v in sus_s sus_warm sus_ceil_s sus_payload sus_backlog sus_producers sus_chunk sus_runs50; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "bench/run: $v must be a positive integer (got '${!v}')" >&2; exit 64; }
done
case "$sus_p80" in 0|1) ;; *) echo "bench/run: BENCH_P80 is 0 or 1" >&2; exit 64 ;; esac
case "$sus_ceil_sweep" in first|every) ;; *) echo "bench/run: BENCH_CEILING_SWEEP is first or every" >&2; exit 64 ;; esac
DB_SUS="${dbp}sustained" DB_SUS3="${dbp}sustained3" DB_SUSC="${dbp}sustained_ceiling"
DBS="$DBS $DB_SUS $DB_SUS3 $DB_SUSC"
declare -A S=()
sus_add() { S[$1]="${S[$1]:+${S[$1]}$'\n'}$2"; } # appends line $2 to S[$1]

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

sustained_ceiling() { # $1 repetition
  local rep="$1" m="$cur_mode"
  if [ -n "${ext_url:-}" ]; then
    # pgbench speaks PostgreSQL only: the same statements through JDBC instead
    sustained_jdbc_ceiling "$rep"
    return 0
  fi
  local c item insert_call out s0 s1 a0 a1 pg0 pg1 jps best=0 best_c=0 clients="$sus_clients" calls line
  if [ "$rep" -gt 1 ] && [ "$sus_ceil_sweep" = first ] && [ -n "${S[$m|ceil_best_c|1]:-}" ]; then
    clients="${S[$m|ceil_best_c|1]}"
  fi
  item="$(sus_item_json bench)"
  for c in $clients; do
    fresh_db $DB_SUSC
    migrate $DB_SUSC
    make_function_in $DB_SUSC bench_insert_many job_insert_many.sql
    insert_call="SELECT count(*) AS inserted FROM $(fn_call bench_insert_many :lim) \\gset"
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
    { echo "$insert_call"; echo "$ack_pick FROM $ack_call \\gset"; } > "$tmp/sus-ceiling.pgbench"
    a0="$(pgval -d $DB_SUSC -c "select count(*) from readpast_job_archive")"
    pgss_reset $DB_SUSC
    pg0="$(pg_ticks)"; s0=$(date +%s.%N)
    out="$tmp/sus-ceiling-$m-$rep-$c.out"
    local -a defs; mapfile -t defs < <(ceiling_defines)
    run_child timeout $((sus_ceil_s + 120)) "${app_prefix[@]}" pgbench -n -M prepared -c "$c" -j "$(( c < 2 ? c : 2 ))" -T "$sus_ceil_s" \
      -f "$tmp/sus-ceiling.pgbench" "${defs[@]}" $DB_SUSC > "$out" 2>&1 \
      || { cat "$out" >&2; fail "sustained ceiling, $c clients"; }
    s1=$(date +%s.%N); pg1="$(pg_ticks)"
    calls="$(pgss_calls $DB_SUSC)"
    a1="$(pgval -d $DB_SUSC -c "select count(*) from readpast_job_archive")"
    local left; left="$(pgval -d $DB_SUSC -c "select count(*) from readpast_job where status = 0")"
    jps="$(calc %.1f "($a1 - $a0) / ($s1 - $s0)")"
    line="RESULT sustained_ceiling clients=$c seconds=$(calc %.1f "$s1 - $s0") jobs=$((a1 - a0)) jobs_per_s=$jps pending_end=$left pg_cpu_s=$(calc %.2f "($pg1 - $pg0) / $CLK_TCK") pg_cpu_s_per_1k=$(calc %.4f "($pg1 - $pg0) / $CLK_TCK / (($a1 - $a0) / 1000)") $(grep -E '^tps' "$out" | head -1 | tr -s ' ' | sed 's/ (without initial connection time)//; s/ = /=/')"
    is_num "$calls" && line="$line statements_per_1k=$(calc %.1f "$calls / (($a1 - $a0) / 1000)")"
    line="$line mode=$m rep=$rep"
    sus_add "$m|ceil_lines|$rep" "$line"
    log "sustained ceiling: $line"
    if awk -v a="$jps" -v b="$best" 'BEGIN { exit !(a > b) }'; then best="$jps" best_c="$c"; fi
    drop_db $DB_SUSC
  done
  S[$m|ceil_best|$rep]="$best" S[$m|ceil_best_c|$rep]="$best_c"
  [ "${BENCH_JDBC_CEILING:-0}" != 1 ] || [ "$rep" != 1 ] || sustained_jdbc_ceiling "$rep"
}

# The ceiling through JDBC (Driver ceiling): the broker's own statement files, loaded by its
# StatementCatalog, at the same client counts, batch, payload and backlog as the pgbench ceiling,
# in queue bench-ceiling. With BENCH_DB_URL it is the ceiling (a broker started and stopped first
# migrates that database); on the bench's PostgreSQL, BENCH_JDBC_CEILING=1 also runs it beside
# pgbench (first repetition), to compare the two runners (reported, not used in the ratios).
sustained_jdbc_ceiling() { # $1 repetition
  local rep="$1" m="$cur_mode"
  local db_url="${ext_url:-jdbc:postgresql://$PGHOST:$PGPORT/$DB_SUSC}" out="$tmp/sus-jdbc-ceiling-$m-$rep.out" line jps c
  local best="${S[$m|ceil_best|$rep]:-0}" best_c="${S[$m|ceil_best_c|$rep]:-0}"
  if [ -n "${ext_url:-}" ]; then
    start_broker "$DB_SUSC" && stop_broker
  else
    fresh_db $DB_SUSC
    migrate $DB_SUSC
  fi
  run_child timeout $(( (sus_ceil_s + 120) * $(wc -w <<<"$sus_clients") )) "${app_prefix[@]}" "$JAVA" -cp "$driver_cp" \
    Driver ceiling --jdbc "$db_url" --db-user "${BENCH_DB_USERNAME:-$PGUSER}" \
    --db-password "${BENCH_DB_PASSWORD:-${PGPASSWORD:-}}" --clients "$sus_clients" --seconds "$sus_ceil_s" \
    --batch "$b" --backlog "$sus_backlog" --payload-bytes "$sus_payload" --clk-tck "$CLK_TCK" \
    $([ -z "${ext_url:-}" ] && echo --postmaster "$postmaster") > "$out" \
    || fail "sustained ceiling through JDBC"
  while read -r line; do
    sus_add "$m|ceil_lines|$rep" "$line mode=$m rep=$rep"
    log "sustained ceiling (JDBC): $line"
    if [ -n "${ext_url:-}" ]; then
      jps="$(kv "$line" jobs_per_s)" c="$(kv "$line" clients)"
      if awk -v a="$jps" -v b="$best" 'BEGIN { exit !(a > b) }'; then best="$jps" best_c="$c"; fi
    fi
  done < <(grep '^RESULT sustained_ceiling' "$out")
  S[$m|ceil_best|$rep]="$best" S[$m|ceil_best_c|$rep]="$best_c"
  [ -n "${ext_url:-}" ] || drop_db $DB_SUSC
}

# the Driver's sustained mode against $url; sets sus_line (its RESULT line, with mode=); not in a
# subshell, so that what it records (statements, JFR files) stays
sus_driver() { # $1 label, $2 rate (0: the maximum), $3 queue, $4 broker pids (comma list), $5 database
  local out="$tmp/sus-$cur_mode-$1.out"
  jfr_start "$cur_mode-$1" "$4"
  # shellcheck disable=SC2046
  driver sustained --label "$1" --rate "$2" --queue "$3" --workers "$w" --batch "$b" --producers "$sus_producers" \
    --chunk "$sus_chunk" --payload-bytes "$sus_payload" --backlog "$sus_backlog" --seconds "$sus_s" \
    --warmup-seconds "$sus_warm" --broker-pid "$4" --postmaster "$postmaster" $(pgss_opts "$5") > "$out" \
    || fail "driver sustained $1 (mode $cur_mode)"
  jfr_stop "$cur_mode-$1" "$4"
  if grep -q '^STATEMENT' "$out"; then
    sus_add "$cur_mode|statements" "$(grep '^STATEMENT' "$out" | sed "s/^STATEMENT label=/STATEMENT mode=$cur_mode label=/")"
  fi
  sus_line="$(grep '^RESULT sustained' "$out") mode=$cur_mode"
}

# between the phases on one broker, as before each drain: the last phase's dead rows and WAL
# must not weigh on the next one
sus_settle() { [ -n "${ext_url:-}" ] || psqlq -d $DB_SUS -c 'VACUUM ANALYZE readpast_job' -c CHECKPOINT; }

sustained_readpast() { # $1 repetition
  local rep="$1" m="$cur_mode" line i r med
  fresh_db $DB_SUS
  start_broker $DB_SUS
  log "sustained ($m, $rep/$reps): the maximum ($sus_s s after $sus_warm s untimed; backlog $sus_backlog, $sus_payload-byte payloads)"
  sus_driver "max$rep" 0 "sus_max_$rep" "$broker_pid" $DB_SUS
  line="$sus_line rep=$rep"
  S[$m|max|$rep]="$line"
  log "sustained: $line"
  if [ "$rep" = "$reps" ]; then
    # the rates: shares of this mode's median maximum, on the broker of the last repetition
    local maxes=()
    for i in $(seq 1 "$reps"); do maxes+=("$(kv "${S[$m|max|$i]}" jobs_per_s)"); done
    med="$(median "${maxes[@]}")"
    S[$m|max_median]="$med"
    for i in $(seq 1 "$sus_runs50"); do
      r="$(calc %.0f "$med * 0.5")"; [ "$r" -ge 1 ] || r=1  # a rate of 0 would be the maximum again
      sus_settle
      sus_driver "p50load$i" "$r" "sus_50_$i" "$broker_pid" $DB_SUS
      sus_add "$m|rate" "$sus_line"
      log "sustained 50% ($i): ${S[$m|rate]##*$'\n'}"
    done
    if [ "$sus_p80" = 1 ]; then
      r="$(calc %.0f "$med * 0.8")"; [ "$r" -ge 1 ] || r=1
      sus_settle
      sus_driver p80load "$r" sus_80 "$broker_pid" $DB_SUS
      sus_add "$m|rate" "$sus_line"
      log "sustained 80%: ${S[$m|rate]##*$'\n'}"
    fi
    S[$m|rss]="$(awk '/VmHWM/ { print $2 }' /proc/$broker_pid/status 2>/dev/null || echo '?')"
  fi
  stop_broker
  drop_db $DB_SUS
}

sustained_native() { # the maximum and 50% once more on the native binary (BENCH_NATIVE), shared mode
  [ -n "${BENCH_NATIVE:-}" ] || return 0
  local m="$cur_mode" line nmax
  fresh_db $DB_SUS
  start_broker $DB_SUS "$BENCH_NATIVE"
  sus_driver native_max 0 sus_nmax "$broker_pid" $DB_SUS
  sus_add "$m|native" "$sus_line"
  nmax="$(kv "$sus_line" jobs_per_s)"
  sus_driver native_p50load "$(calc %.0f "$nmax * 0.5 + 0.5")" sus_n50 "$broker_pid" $DB_SUS
  sus_add "$m|native" "$sus_line"
  S[$m|native_rss]="$(awk '/VmHWM/ { print $2 }' /proc/$broker_pid/status 2>/dev/null || echo '?')"
  log "sustained native: ${S[$m|native]}"
  stop_broker
  drop_db $DB_SUS
}

sustained_three() { # $1 repetition
  local rep="$1" m="$cur_mode"
  if [ "${BENCH_THREE:-1}" != 1 ]; then S[$m|three|$rep]="SKIPPED three brokers: BENCH_THREE=0"; return 0; fi
  if [ -n "${skip_reason[haproxy]:-}" ]; then
    S[$m|three|$rep]="SKIPPED three brokers: ${skip_reason[haproxy]}"; log "${S[$m|three|$rep]}"; return 0
  fi
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
  "${app_prefix[@]}" haproxy -q -f "$tmp/haproxy.cfg" -db > "$tmp/haproxy-$m-$rep.log" 2>&1 &
  local hp=$!
  extra_pids="$extra_pids $hp"
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$lb/q/health/ready" >/dev/null && break; sleep 0.1; done
  log_pinned "$hp" HAProxy
  local one_url="$url"
  url="http://127.0.0.1:$lb"
  log "sustained ($m, $rep/$reps): three brokers (pids $pids) behind HAProxy on $url"
  sus_driver "three_max$rep" 0 "sus_three_$rep" "$pids,$hp" $DB_SUS3
  S[$m|three|$rep]="$sus_line rep=$rep"
  url="$one_url"
  log "sustained three: ${S[$m|three|$rep]}"
  stop_extra
  drop_db $DB_SUS3
}

sustained_graphile() { # $1 repetition
  local rep="$1" m="$cur_mode" line=""
  if [ -n "${ext_url:-}" ]; then S[$m|graphile|$rep]="SKIPPED graphile-worker: BENCH_DB_URL is set"; return 0; fi
  case " $peer_list " in
    *" graphile-worker "*|*" graphile "*) ;;
    *) S[$m|graphile|$rep]="SKIPPED graphile-worker: not in the peers of this run (--peers)"; return 0 ;;
  esac
  if [ -n "${skip_reason[node-peers]:-}" ]; then S[$m|graphile|$rep]="SKIPPED graphile-worker: ${skip_reason[node-peers]}"; return 0; fi
  local pdb=${dbp}graphile out="$tmp/peer-graphile-sustained-$m-$rep.out"
  peer_dbs="$peer_dbs $pdb"
  log "sustained ($m, $rep/$reps): graphile-worker ($sus_s s after $sus_warm s, backlog $sus_backlog, $sus_payload-byte payloads)"
  if BENCH_JDBC_URL="jdbc:postgresql://$PGHOST:$PGPORT/postgres" BENCH_DB_USER="$PGUSER" BENCH_DB_NAME="$pdb" \
      BENCH_SUSTAINED_SECONDS="$sus_s" BENCH_SUSTAINED_WARMUP="$sus_warm" BENCH_PAYLOAD_BYTES="$sus_payload" \
      BENCH_BACKLOG="$sus_backlog" BENCH_PRODUCERS="$sus_producers" \
      run_child "${app_prefix[@]}" "$here/peers/run-peer.sh" graphile-sustained 1 "$w" > "$out" 2> "$out.err"; then
    line="$(grep '^RESULT sustained peer=' "$out" | tail -1)"
  fi
  if [ -n "$line" ] && [ "$(kv "$line" p50_ms)" = NaN ]; then
    # its workers took no job of the timed window (no latency to count): the harness stalled, and
    # its jobs_per_s counts only what its producers added; a failed run, named and left out of
    # the ratios (one in the full run of 2026-12-07 made a ratio of 35.9)
    line="FAILED graphile-worker sustained: stalled, no job of the timed window was processed ($line)"
  elif [ -n "$line" ]; then
    line="$line mode=$m rep=$rep"
  else
    line="FAILED graphile-worker sustained: $(grep -m1 FAILED "$out.err" || tail -1 "$out.err")"
  fi
  S[$m|graphile|$rep]="$line"
  log "sustained graphile-worker: $line"
  drop_db "$pdb"
}

sustained_all() {
  local rep m
  for rep in $(seq 1 "$reps"); do
    for m in $run_modes; do
      set_mode "$m"
      timed "ceiling ($m $rep)" sustained_ceiling "$rep"
      timed "readpast ($m $rep)" sustained_readpast "$rep"
      timed "three ($m $rep)" sustained_three "$rep"
      timed "graphile ($m $rep)" sustained_graphile "$rep"
    done
  done
  case " $run_modes " in *" shared "*) set_mode shared; sustained_native ;; esac
}
