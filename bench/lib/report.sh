# The results file, bench/results/<stamp>.md (sourced by bench/run): written from the RESULT lines
# the phases kept (S: sustained.sh, D: drain.sh, I: idle.sh, C: clients.sh, and the shared mode's
# drain ceiling, latency, backlog and peers), figures.sh's table first.

mode_text() {
  case "$1" in
    split) echo "split (PostgreSQL on CPU $split_pg_cpus; broker, HAProxy, Driver, pgbench and the peers on CPU $split_app_cpus, with taskset)" ;;
    shared) echo "shared (everything on CPUs $all_cpus, as before)" ;;
  esac
}

report_header() { # $1 title suffix
  echo "# Readpast benchmark $stamp ($mode$1), commit ${git_commit:0:12}"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), total duration ${duration}s ($(printf '%s, ' "${phase_times[@]}" | sed 's/, $//'))"
  echo "- machine: $(hostname), $(uname -srm), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM; load average $load_start at start, $load_end at end (the machine is shared: other work may run alongside)"
  echo "- Readpast: commit $git_commit at the start of the run$([ "$git_dirty" -gt 0 ] && echo " (+$git_dirty uncommitted changes under src/ or pom.xml: the jar may include them)"), jar ($([ -n "${BENCH_APP:-}" ] && echo "BENCH_APP=$BENCH_APP, not the commit's build" || echo target/quarkus-app), copied at the start) built $jar_time, default settings (pool max-size 20), auth off"
  local m
  echo "- modes: $( { for m in $run_modes; do printf '%s; ' "$(mode_text "$m")"; done
    for m in $modes; do [ -z "${mode_skip[$m]:-}" ] || printf '**%s skipped**: %s; ' "$m" "${mode_skip[$m]}"; done; } | sed 's/; $//')"
  if [[ " $run_modes " == *" split "* ]]; then
    echo "- split mode: the broker's JVM sees only CPU $split_app_cpus, and picks its defaults for that as on a machine of that size (one CPU: the Serial GC instead of G1, one JIT compiler thread, smaller pools); BENCH_BROKER_JAVA_OPTS overrides them"
  fi
  echo "- repetitions: $reps of every sustained maximum, ceiling, graphile-worker and three-broker phase and of the B = $alt_b drain beside graphile-worker's (each ratio is the median of the repetitions' ratios); $sus_runs50 run(s) at 50% load$([ "$sus_p80" = 1 ] && echo ", one at 80%") on the last repetition's broker; the ceiling sweeps $sus_clients clients $([ "$sus_ceil_sweep" = first ] && [ "$reps" -gt 1 ] && echo "in the first repetition, the later ones run its best count" || echo "each time")"
  if [ -z "${ext_url:-}" ]; then
    echo "- PostgreSQL: $(pgval -d postgres -c 'select version()'); $(pgval -d postgres -F= -c "select name, setting || coalesce(unit, '') from pg_settings where name in
  ('shared_buffers','synchronous_commit','fsync','autovacuum','max_connections','work_mem','max_wal_size','wal_level','shared_preload_libraries')
  order by name" | tr '\n' ' ')"
  else
    echo "- database: BENCH_DB_URL=${ext_url%%;*}$(db_flavor_label) (its CPU is not measured: the PostgreSQL CPU columns count nothing; figures on Babelfish are Babelfish's, not SQL Server's)"
  fi
  echo "- Java: $("$JAVA" -version 2>&1 | head -2 | tr '\n' ' ')$(command -v pgbench >/dev/null && echo "; $(pgbench --version)")"
  echo "- statements per 1000 jobs: $([ "$pgss" = 1 ] && echo "pg_stat_statements (track top, utility statements included: BEGIN, COMMIT, SET count), the phase's database only, reset when its timed window starts" || echo "not measured (${skip_reason[pgss]:-pg_stat_statements not loaded})")"
  echo "- CPU: utime+stime from /proc, PostgreSQL = all server processes (live children + reaped children of the postmaster), over each timed window; per 1000 jobs completed in it"
  [ "${BENCH_JFR:-0}" = 1 ] && echo "- BENCH_JFR=1: every JVM broker ran a flight recording (settings=profile), which costs it some CPU"
  return 0
}

# one row of a sustained table
sus_row() { # $1 name, $2 RESULT line, $3 ceiling of its repetition (0: none)
  local l="$2"
  if [[ "$l" != RESULT* ]]; then echo "| $1 | ${l:-not run} |||||||||||"; return; fi
  echo "| $1$( [ "$(kv "$l" missing)" != 0 ] && echo " (**not sustained**: $(kv "$l" missing) jobs of the window unclaimed 15 s after it)") | $( [ "$(kv "$l" rate)" = 0.0 ] && echo "-" || kv "$l" offered_jobs_per_s) | $(kv "$l" jobs_per_s) | $( [ "${3:-0}" = 0 ] && echo - || calc %.2f "$(kv "$l" jobs_per_s) / $3") | $(kv "$l" backlog_start) / $(kv "$l" backlog_end) ($(kv "$l" backlog_min)-$(kv "$l" backlog_max)) | $(kv "$l" p50_ms) | $(kv "$l" p99_ms) | $( [ "$(kv "$l" rate)" = 0.0 ] && echo "-" || echo "$(kv "$l" p99_due_ms) (late $(kv "$l" late_ms_p99))") | $(kv "$l" max_ms) | $(kv "$l" statements_per_1k | grep . || echo -) | $(kv "$l" pg_cpu_s_per_1k | grep . || echo -) | $(kv "$l" broker_cpu_s_per_1k | grep . || echo -) |"
}

sustained_report() { # $1 mode
  local m="$1" rep line ceil r
  echo "## Sustained, $m mode: producers and workers at once, $sus_payload-byte JSON payloads, $sus_s s timed after $sus_warm s"
  echo
  echo "Mode: $(mode_text "$m"). Producers: $sus_producers x POST /jobs/batch of up to $sus_chunk jobs; workers: $w x POST /claim (limit $b, waitSeconds 1), each batch acknowledged with the next claim. \"max\": the producers keep the backlog at about $sus_backlog jobs, so workers never wait (its latency is the backlog's wait, not the broker's); the rate rows offer a fixed rate (open loop, $( [ "$sus_runs50" -gt 0 ] && echo "shares of the median maximum") ) and report enqueue-to-claim latency of every job sent in the window, counted from the send of its request and (\"from due\") from the time the request was due, with the producers' lateness p99 beside."
  echo
  echo "| system | offered jobs/s | completed jobs/s | ratio to ceiling | backlog start / end (min-max) | p50 ms | p99 ms | p99 ms from due (late) | max ms | statements / 1000 jobs | PostgreSQL CPU-s / 1000 | broker CPU-s / 1000 |"
  echo "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  local ceil_runner="pgbench"
  [ -n "${ext_url:-}" ] && ceil_runner="JDBC, Driver ceiling"
  for rep in $(seq 1 "$reps"); do
    ceil="${S[$m|ceil_best|$rep]:-0}"
    [ "$ceil" = 0 ] || echo "| ceiling $rep ($ceil_runner, job_insert_many + job_ack_claim, best count: ${S[$m|ceil_best_c|$rep]} clients) | - | $ceil | 1.00 | $sus_backlog | - | - | - | - | - | - | - |"
  done
  for rep in $(seq 1 "$reps"); do sus_row "readpast, maximum $rep (one broker)" "${S[$m|max|$rep]:-}" "${S[$m|ceil_best|$rep]:-0}"; done
  while read -r line; do
    [ -n "$line" ] || continue
    r="$(kv "$line" label)"
    sus_row "readpast, ${r/load/ load} (of the median maximum, ${S[$m|max_median]:-?})" "$line" "${S[$m|ceil_best|$reps]:-0}"
  done <<<"${S[$m|rate]:-}"
  for rep in $(seq 1 "$reps"); do
    sus_row "readpast, three brokers behind HAProxy, maximum $rep (broker CPU: the three and HAProxy)" "${S[$m|three|$rep]:-}" "${S[$m|ceil_best|$rep]:-0}"
  done
  while read -r line; do
    [ -n "$line" ] && sus_row "readpast native, $(kv "$line" label) (peak RSS ${S[$m|native_rss]:-?} kB)" "$line" "${S[$m|ceil_best|1]:-0}"
  done <<<"${S[$m|native]:-}"
  for rep in $(seq 1 "$reps"); do
    line="${S[$m|graphile|$rep]:-}"
    if [[ "$line" == RESULT* ]]; then
      ceil="${S[$m|ceil_best|$rep]:-0}"
      echo "| graphile-worker $(kv "$line" version), maximum $rep (jobs counted when their handler ran) | - | $(kv "$line" jobs_per_s) | $( [ "$ceil" = 0 ] && echo - || calc %.2f "$(kv "$line" jobs_per_s) / $ceil") | $(kv "$line" backlog_start) / $(kv "$line" backlog_end) ($(kv "$line" backlog_min)-$(kv "$line" backlog_max)) | $(kv "$line" p50_ms) | $(kv "$line" p99_ms) | - | $(kv "$line" max_ms) | - | - | - |"
    else
      echo "| graphile-worker, maximum $rep | ${line:-not run} |||||||||||"
    fi
  done
  echo
  echo "Ceiling by client count ($sus_ceil_s s each with $sus_backlog pending jobs; each round inserts $b jobs, acknowledges the client's previous $b and claims $b; $([ -z "${ext_url:-}" ] && echo "pgbench on a fresh database; ")JDBC (Driver ceiling: the broker's statement files through its StatementCatalog) in queue bench-ceiling$([ -z "${ext_url:-}" ] && echo ", where run, is reported beside pgbench and not in the ratios"):"
  echo
  echo "| repetition | runner | clients | completed jobs/s | statements / 1000 jobs | PostgreSQL CPU-s / 1000 jobs | pending at the end |"
  echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
  for rep in $(seq 1 "$reps"); do
    while read -r line; do
      [ -n "$line" ] || continue
      echo "| $rep | $(kv "$line" runner | grep . || echo pgbench) | $(kv "$line" clients) | $(kv "$line" jobs_per_s) | $(kv "$line" statements_per_1k | grep . || echo -) | $(kv "$line" pg_cpu_s_per_1k | grep . || echo -) | $(kv "$line" pending_end) |"
    done <<<"${S[$m|ceil_lines|$rep]:-}"
  done
  echo
  echo "Broker peak RSS (last repetition's broker): ${S[$m|rss]:-?} kB."
  echo
}

# the drain's ratio to graphile-worker's at B (the drain table's), into graphile_ratio
drain_ratios() {
  local line rp_jps
  graphile_ratio="n/a (graphile-worker not run or failed)"
  rp_jps="$(kv "${D[shared|drain]:-}" jobs_per_s)"
  is_num "$rp_jps" || return 0
  for line in "${peer_lines[@]}"; do
    [[ "$line" == RESULT*peer=graphile-worker* ]] && graphile_ratio="$(calc %.2f "$rp_jps / $(kv "$line" jobs_per_s)")"
  done
  return 0
}

# the cost of each Readpast phase, for the lever logs (round5-levers.md)
cost_report() {
  local m rep line
  echo "## Cost per phase (for the lever logs)"
  echo
  echo "Each Readpast phase's timed window: jobs completed per second, the database's statements per 1000 jobs (pg_stat_statements), and CPU-s per 1000 jobs of the broker(s) and of PostgreSQL."
  echo
  echo "| mode | phase | jobs/s | statements / 1000 jobs | broker CPU-s / 1000 jobs | PostgreSQL CPU-s / 1000 jobs |"
  echo "| --- | --- | ---: | ---: | ---: | ---: |"
  cost_row() { [[ "$3" == RESULT* ]] && echo "| $1 | $2 | $(kv "$3" jobs_per_s) | $(kv "$3" statements_per_1k | grep . || echo -) | $(kv "$3" broker_cpu_s_per_1k) | $(kv "$3" pg_cpu_s_per_1k) |"; return 0; }
  for m in $run_modes; do
    for rep in $(seq 1 "$reps"); do cost_row "$m" "sustained maximum $rep" "${S[$m|max|$rep]:-}"; done
    while read -r line; do [ -n "$line" ] && cost_row "$m" "sustained $(kv "$line" label | sed 's/load/ load/')" "$line"; done <<<"${S[$m|rate]:-}"
    for rep in $(seq 1 "$reps"); do cost_row "$m" "three brokers, maximum $rep" "${S[$m|three|$rep]:-}"; done
    cost_row "$m" "drain of $n, B = $b" "${D[$m|drain]:-}"
    for rep in $(seq 1 "$reps"); do cost_row "$m" "drain of $n, B = $alt_b, $rep" "${D[$m|alt|$rep]:-}"; done
  done
  echo
  local all; all="$(for m in $run_modes; do printf '%s\n' "${S[$m|statements]:-}" "${D[$m|statements]:-}"; done | sed '/^$/d')"
  if [ -n "$all" ]; then
    echo "The most called statements of the first maximum and of the first run at 50% load (calls per 1000 jobs, mean execution ms, rows per call; every phase's are in the raw lines):"
    echo
    echo "| mode | phase | calls / 1000 jobs | mean ms | rows / call | statement |"
    echo "| --- | --- | ---: | ---: | ---: | --- |"
    grep -E ' label=(max1|p50load1) ' <<<"$all" | while read -r line; do
      echo "| $(kv "$line" mode) | $(kv "$line" label) | $(kv "$line" calls_per_1k) | $(kv "$line" mean_ms) | $(kv "$line" rows_per_call) | \`$(sed 's/.* query=//; s/|/\\|/g; s/`/'"'"'/g' <<<"$line")\` |"
    done
    echo
  fi
}

b50_report() {
  local m rep a g
  echo "## Drain of $n at B = $alt_b beside graphile-worker's drain of $n"
  echo
  echo "The drain's warm broker (below) drains $n jobs at claim limit $alt_b, then graphile-worker drains $n in its own database, $reps time(s), in each mode."
  echo
  echo "| mode | repetition | Readpast jobs/s | graphile-worker jobs/s | ratio | Readpast broker / PostgreSQL CPU-s per 1000 jobs |"
  echo "| --- | ---: | ---: | ---: | ---: | --- |"
  for m in $run_modes; do
    for rep in $(seq 1 "$reps"); do
      a="${D[$m|alt|$rep]:-}" g="${D[$m|gdrain|$rep]:-}"
      [ -n "$a$g" ] || continue
      echo "| $m | $rep | $(kv "$a" jobs_per_s | grep . || echo -) | $( [[ "$g" == RESULT* ]] && kv "$g" jobs_per_s || echo "${g:-not run}") | $( [[ "$g" == RESULT* ]] && [[ "$a" == RESULT* ]] && calc %.2f "$(kv "$a" jobs_per_s) / $(kv "$g" jobs_per_s)" || echo -) | $(kv "$a" broker_cpu_s_per_1k) / $(kv "$a" pg_cpu_s_per_1k) |"
    done
  done
  echo
}

drain_report() {
  local m=shared ratio line jps name
  local enq_line="${D[$m|enq]:-}" drain_line="${D[$m|drain]:-}" threads_line="${D[$m|threads]:-}"
  local cold_enq_line="${D[$m|cold_enq]:-}" cold_drain_line="${D[$m|cold_drain]:-}" cold_threads_line="${D[$m|cold_threads]:-}"
  [ -n "$drain_line" ] || return 0
  local rp_jps; rp_jps="$(kv "$drain_line" jobs_per_s)"
  ratio() { calc %.2f "$1 / $ceil_jps"; }
  echo "The drain below: N jobs enqueued first, then drained (no producers meanwhile); shared mode but for the split row."
  echo
  echo "## Throughput: drain $n no-op jobs, $w workers"
  echo
  echo "| system | version | jobs/s | ratio to ceiling | PostgreSQL CPU-s / 1000 jobs | broker CPU-s / 1000 jobs | client CPU-s / 1000 jobs | drain s |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  echo "| ceiling (pgbench, Readpast's SQL) | PostgreSQL $(pgval -d postgres -c 'show server_version' | cut -d' ' -f1) | $ceil_jps | 1.00 | $ceil_pg_cpu_k | - | $ceil_client_k (pgbench) | $ceil_s |"
  echo "| readpast (HTTP end to end$([ "$warmup" -gt 0 ] && echo ", warm broker")) | ${git_commit:0:10} | $rp_jps | $(ratio "$rp_jps") | $(kv "$drain_line" pg_cpu_s_per_1k) | $(kv "$drain_line" broker_cpu_s_per_1k) | $(kv "$drain_line" driver_cpu_s_per_1k) (Driver) | $(kv "$drain_line" seconds) |"
  line="${D[split|drain]:-}"
  if [ -n "$line" ]; then
    echo "| readpast, split mode (its own warm broker; not in the ratio, its ceiling ran shared) | ${git_commit:0:10} | $(kv "$line" jobs_per_s) | $(ratio "$(kv "$line" jobs_per_s)") | $(kv "$line" pg_cpu_s_per_1k) | $(kv "$line" broker_cpu_s_per_1k) | $(kv "$line" driver_cpu_s_per_1k) (Driver) | $(kv "$line" seconds) |"
  fi
  line="${D[$m|alt|1]:-}"
  if [ -n "$line" ]; then
    jps="$(kv "$line" jobs_per_s)"
    echo "| readpast, B=$alt_b (same warm broker, drained after the row above, first of $reps; not in the ratio, its ceiling ran at B=$b) | ${git_commit:0:10} | $jps | $(ratio "$jps") | $(kv "$line" pg_cpu_s_per_1k) | $(kv "$line" broker_cpu_s_per_1k) | $(kv "$line" driver_cpu_s_per_1k) (Driver) | $(kv "$line" seconds) |"
  fi
  if [ -n "${native_drain_line:-}" ]; then
    jps="$(kv "$native_drain_line" jobs_per_s)"
    echo "| readpast, native binary (same drain and warm-up, own database; peak RSS ${native_rss_kb} kB vs the JVM's ${jvm_rss_kb} kB) | ${git_commit:0:10} | $jps | $(ratio "$jps") | $(kv "$native_drain_line" pg_cpu_s_per_1k) | $(kv "$native_drain_line" broker_cpu_s_per_1k) | $(kv "$native_drain_line" driver_cpu_s_per_1k) (Driver) | $(kv "$native_drain_line" seconds) |"
  fi
  if [ -n "$cold_drain_line" ]; then
    jps="$(kv "$cold_drain_line" jobs_per_s)"
    echo "| readpast, cold broker (first $warmup jobs after start; not in the ratio) | ${git_commit:0:10} | $jps | $(ratio "$jps") | $(kv "$cold_drain_line" pg_cpu_s_per_1k) | $(kv "$cold_drain_line" broker_cpu_s_per_1k) | $(kv "$cold_drain_line" driver_cpu_s_per_1k) (Driver) | $(kv "$cold_drain_line" seconds) |"
  fi
  for line in "${peer_lines[@]}"; do
    name="$(sed -n 's/.*peer=\([^ ]*\).*/\1/p' <<<"$line")"
    if [[ "$line" == RESULT* ]]; then
      jps="$(kv "$line" jobs_per_s)"
      echo "| $name$([ -n "$(kv "$line" mode)" ] && echo " (median of the $reps drains beside B = $alt_b)") | $(kv "$line" version) | $jps | $(ratio "$jps") | - | - | - | $(kv "$line" drain_s) |"
    else
      echo "| $name | - | FAILED | - | - | - | - | $(sed 's/^FAILED peer=[^ ]* //' <<<"$line") |"
    fi
  done
  echo
  echo "Readpast enqueue (not part of the drain): $(kv "$enq_line" jobs_per_s) jobs/s ($(kv "$enq_line" jobs) jobs in $(kv "$enq_line" seconds) s, POST /jobs/batch p50 $(kv "$enq_line" request_ms_p50) ms; broker $(kv "$enq_line" broker_cpu_s) CPU-s, PostgreSQL $(kv "$enq_line" pg_cpu_s) CPU-s)."
  echo "Readpast drain: broker CPU-s by thread group: $(sed -n 's/.*cpu_s_by_thread=//p' <<<"$threads_line" | sed 's/,/, /g')$([ -n "$cold_threads_line" ] && echo "; cold round: $(sed -n 's/.*cpu_s_by_thread=//p' <<<"$cold_threads_line" | sed 's/,/, /g')")."
  [ -n "$cold_enq_line" ] && echo "Readpast cold round enqueue: $(kv "$cold_enq_line" jobs_per_s) jobs/s (POST /jobs/batch p50 $(kv "$cold_enq_line" request_ms_p50) ms)."
  echo "Readpast drain: $(kv "$drain_line" claims) claims ($(kv "$drain_line" empty_claims) empty), $([ "$ack_claim" = 1 ] && echo "ack-and-claim" || echo claim) p50 $(kv "$drain_line" claim_ms_p50) ms / p99 $(kv "$drain_line" claim_ms_p99) ms$([ "$ack_claim" = 1 ] || echo ", batch complete p50 $(kv "$drain_line" complete_ms_p50) ms / p99 $(kv "$drain_line" complete_ms_p99) ms"), $(kv "$drain_line" lost) acks refused; broker $(kv "$drain_line" broker_cpu_s) CPU-s, PostgreSQL $(kv "$drain_line" pg_cpu_s) CPU-s$([ -n "$(kv "$drain_line" statements_per_1k)" ] && echo ", $(kv "$drain_line" statements_per_1k) statements per 1000 jobs")."
  echo "Ceiling: ${ceil_pg_cpu} PostgreSQL CPU-s; pgbench: $ceil_tps_line; $ceil_lat_line."
  echo "Machine CPU used by processes other than the measured ones (other engineers' work; PostgreSQL work for other databases counts as ours) during the ceiling: $ceil_other; during Readpast's drain: $(kv "$drain_line" other_cpu_s) CPU-s ($(calc %.2f "$(kv "$drain_line" other_cpu_s) / $(kv "$drain_line" seconds)") cores). With $(nproc) cores, more than a few tenths of a core means the throughput figures are disturbed: rerun when the machine is quiet."
  echo "Readpast / graphile-worker (batched) drain at B = $b: $graphile_ratio."
  echo "Peers' drain_s comes from their harness (start of workers to the first 50 ms probe that sees all done); enqueue is not timed in either."
  echo
}

probes_report() { # latency, backlog (shared), idle (each mode)
  [ "$has_shared" = 1 ] && latency_backlog_report
  echo "## Idle: a fresh broker, 100 workers long-polling an empty queue (waitSeconds 30)"
  echo
  local m l
  for m in $run_modes; do
    l="${I[$m]:-}"
    [ -n "$l" ] || continue
    echo "- $m: transactions of the broker's database: $(kv "$l" transactions) in $(kv "$l" window_s) s after ${idle_settle} s of settling = **$(kv "$l" transactions_per_s) transactions/s** (target <= 0.5); the workers' claims answered (empty, each after its wait) meanwhile: $(kv "$l" answers)."
  done
  echo
}

latency_backlog_report() {
  echo "## Latency: enqueue to claim, $w long-polling workers (waitSeconds 30, limit 1), shared mode"
  echo
  echo "| offered jobs/s | seconds | jobs | p50 ms | p99 ms | max ms | mean ms | POST /jobs p50 ms |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  echo "| $(kv "$lat_line" offered_rate) | $lat_seconds | $(kv "$lat_line" jobs) | $(kv "$lat_line" p50_ms) | $(kv "$lat_line" p99_ms) | $(kv "$lat_line" max_ms) | $(kv "$lat_line" mean_ms) | $(kv "$lat_line" enqueue_ms_p50) |"
  echo
  echo "## Claim cost against backlog: $backlog_pending pending in one queue, single claims (limit 1) over HTTP, one client, shared mode"
  echo
  echo "| archived rows | claims | claim p50 ms | claim mean ms | claim p99 ms | complete p50 ms | complete mean ms |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  echo "| 1000 | $(kv "$bl1" claims) | $(kv "$bl1" claim_ms_p50) | $(kv "$bl1" claim_ms_mean) | $(kv "$bl1" claim_ms_p99) | $(kv "$bl1" complete_ms_p50) | $(kv "$bl1" complete_ms_mean) |"
  echo "| $bl_count | $(kv "$bl2" claims) | $(kv "$bl2" claim_ms_p50) | $(kv "$bl2" claim_ms_mean) | $(kv "$bl2" claim_ms_p99) | $(kv "$bl2" complete_ms_p50) | $(kv "$bl2" complete_ms_mean) |"
  echo "| $bl_count, + $bl_delayed_count delayed (priority 10) | $(kv "$bl3" claims) | $(kv "$bl3" claim_ms_p50) | $(kv "$bl3" claim_ms_mean) | $(kv "$bl3" claim_ms_p99) | $(kv "$bl3" complete_ms_p50) | $(kv "$bl3" complete_ms_mean) |"
  echo
  echo "Delayed jobs in front of the due ones (scheduled state, outside the claim index): claim p50 x$(calc %.2f "$(kv "$bl3" claim_ms_p50) / $(kv "$bl2" claim_ms_p50)"), claim mean x$(calc %.2f "$(kv "$bl3" claim_ms_mean) / $(kv "$bl2" claim_ms_mean)") of the same backlog without them."
  echo
  echo "Ratio $bl_count / 1000 archived: claim p50 x$(calc %.2f "$(kv "$bl2" claim_ms_p50) / $(kv "$bl1" claim_ms_p50)"), claim mean x$(calc %.2f "$(kv "$bl2" claim_ms_mean) / $(kv "$bl1" claim_ms_mean)")."
  echo
}

clients_report() {
  echo "## Worker libraries against the Driver (clients/conformance/run --bench $n)"
  echo
  if [ -n "$clients_skip" ]; then
    echo "Skipped: $clients_skip."
    echo
    return 0
  fi
  echo "Mode $clients_mode. Each library's worker (no-op handler) drains $n jobs, interleaved with the Driver's drain of $n on the same broker, $reps time(s); the ratio is the median of the repetitions' ratios."
  echo
  echo "| library | jobs/s (median) | ratio to the Driver | target | status |"
  echo "| --- | ---: | ---: | --- | --- |"
  local lib k
  for lib in $client_libs; do
    k="$clients_mode client-$lib-ratio-to-driver"
    echo "| $lib | $(kv "${C[$lib]}" jobs_per_s_median | grep . || echo -) | ${F[$k]} | ${FT[$k]} | ${FS[$k]}$([[ "${C[$lib]}" == RESULT* ]] || echo ": ${FN[$k]}") |"
  done
  echo
}

jfr_report() {
  [ "${BENCH_JFR:-0}" = 1 ] || return 0
  echo "## Flight recordings (BENCH_JFR=1)"
  echo
  echo "One file per phase and broker under $tmp/jfr (kept): open them in JDK Mission Control, or \`jfr view hot-methods <file>\`, \`jfr print --events jdk.ExecutionSample <file>\`. The hottest methods of each mode's first maximum and first run at 50% load:"
  echo
  local f
  for f in "${jfr_files[@]}"; do
    case "$(basename "$f")" in
      *-max1-*|*-p50load1-*)
        echo "\`$f\`:"
        echo
        echo '```'
        "$JAVA_HOME/bin/jfr" view --width 160 hot-methods "$f" 2>&1 | sed -n '1,25p'
        echo '```'
        echo ;;
      *) echo "- \`$f\`" ;;
    esac
  done
  echo
}

raw_lines() {
  local m rep k
  echo "## Raw result lines"
  echo
  echo '```'
  {
  for m in $run_modes; do
    for rep in $(seq 1 "$reps"); do
      printf '%s\n' "${S[$m|ceil_lines|$rep]:-}" "${S[$m|max|$rep]:-}" "${S[$m|three|$rep]:-}" "${S[$m|graphile|$rep]:-}"
    done
    printf '%s\n' "${S[$m|rate]:-}" "${S[$m|native]:-}"
    printf '%s\n' "${D[$m|cold_enq]:-}" "${D[$m|cold_drain]:-}" "${D[$m|cold_threads]:-}" "${D[$m|warm]:-}" \
      "${D[$m|enq]:-}" "${D[$m|drain]:-}" "${D[$m|threads]:-}"
    for rep in $(seq 1 "$reps"); do printf '%s\n' "${D[$m|alt|$rep]:-}" "${D[$m|gdrain|$rep]:-}"; done
    printf '%s\n' "${I[$m]:-}"
  done
  fair_lines
  [ "$only_sustained" = 1 ] || {
    printf '%s\n' "${lat_line:-}" "${bl1:-}" "${bl2:-}" "${bl3:-}"
    printf '%s\n' "${peer_lines[@]}"
    for k in $client_libs; do printf '%s\n' "${C[$k]:-}"; done
  }
  for m in $run_modes; do printf '%s\n' "${S[$m|statements]:-}" "${D[$m|statements]:-}"; done
  } | sed '/^$/d'
  echo '```'
}

write_report() { # $1 file, $2 title suffix
  {
    report_header "$2"
    echo
    echo "## Figures and targets"
    echo
    figures_table
    echo
    local m
    for m in $run_modes; do sustained_report "$m"; done
    cost_report
    fair_report
    if [ "$only_sustained" != 1 ]; then
      b50_report
      drain_report
      probes_report
      clients_report
    fi
    jfr_report
    raw_lines
  } | sed '/^$/N;/^\n$/D' > "$1"
}
