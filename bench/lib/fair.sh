# Fair queues (sourced by bench/run): the same warm broker, the same drain, jobs with fairness keys.
#
# One driver process runs it all (a new one would measure its own cold JIT, on the cores the broker
# and PostgreSQL share): its own warm-up rounds (plain, then one fair round that warms the broker's
# fair claim path), then BENCH_FAIR_REPEAT times a plain drain and a drain per key count, back to
# back; each ratio is a fair drain over the plain drain of its repetition, and the median is
# reported (the drains last seconds, and neighbours share the machine's state).

fair_keys="${BENCH_FAIR_KEYS:-1 100 10000}"
fair_repeat="${BENCH_FAIR_REPEAT:-5}"
fair_out=""
fair_drains() { # on the running broker (database $DB_RP), after its drain if any
  local keys_arg
  keys_arg="$(tr ' ' ',' <<<"$fair_keys")"
  fair_out="$tmp/throughput-fair.out"
  # a database of BENCH_DB_URL is not made afresh: count what its fair queues held before
  local -A before=()
  local k r a
  for k in $fair_keys; do
    for r in $(seq 1 "$fair_repeat"); do
      before[$k|$r]=0
      [ -z "${ext_url:-}" ] || before[$k|$r]="$(archived $DB_RP "fair_${k}_$r")"
    done
  done
  driver throughput --ack-claim "$([ "$ack_claim" = 1 ] && echo true || echo false)" --n "$n" --warmup-jobs "$n" \
    --warmup-seconds "${BENCH_FAIR_WARMUP_SECONDS:-$warmup_s}" --workers "$w" --batch "$b" --producers "$producers" \
    --queue fair --fair-keys "$keys_arg" --repeat "$fair_repeat" --warmup-queue fair_warmup \
    --broker-pid "$broker_pid" --postmaster "$postmaster" --between-cmd "$between" > "$fair_out" \
    || fail "driver throughput, fair queues (broker log: $(tail -5 "$broker_log"))"
  for k in $fair_keys; do
    for r in $(seq 1 "$fair_repeat"); do
      a="$(( $(archived $DB_RP "fair_${k}_$r") - ${before[$k|$r]} ))"
      [ "$a" = "$n" ] || fail "fair queue of $k keys, repetition $r: $a of $n jobs archived"
    done
    log "fair, $k keys: $(grep "^RESULT fair keys=$k " "$fair_out")"
  done
}
# the median of column $2 over the RESULT drain lines whose round starts with $1
fair_median() {
  grep "^RESULT drain round=$1" "$fair_out" | sed -n "s/.* $2=\([^ ]*\).*/\1/p" | sort -g \
    | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.6g", v[(NR + 1) / 2]; else printf "%.6g", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
fair_report() {
  [ -n "$fair_out" ] || return 0
  echo "## Fair queues: the same drain with fairness keys (target: at least 0.8x the plain queue at 100 keys)"
  echo
  [ -z "${ext_url:-}" ] || echo "On the database of BENCH_DB_URL (${ext_url%%;*}$(db_flavor_label)): the fair claim's cost against the plain claim's there. Its CPU is not measured (the PostgreSQL CPU column counts nothing)."
  [ -z "${ext_url:-}" ] || echo
  echo "The warm broker drains $n jobs on a plain queue, then on fair queues (\`fairness: round-robin\`) whose jobs' keys are spread evenly, $fair_repeat times over; claim limit $b, $w workers, one driver process (warmed up on both kinds of queue first). Each ratio is a fair drain over the plain drain of its repetition; the table gives medians, and every ratio."
  echo
  echo "| queue | jobs/s (median) | ratio to the plain queue (median; each repetition) | PostgreSQL CPU-s / 1000 jobs | broker CPU-s / 1000 jobs | drain s |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  echo "| plain | $(fair_median fair_plain_ jobs_per_s) | 1.00 | $(fair_median fair_plain_ pg_cpu_s_per_1k) | $(fair_median fair_plain_ broker_cpu_s_per_1k) | $(fair_median fair_plain_ seconds) |"
  local k line
  for k in $fair_keys; do
    line="$(grep "^RESULT fair keys=$k " "$fair_out")"
    echo "| fair, $k keys | $(kv "$line" jobs_per_s_median) | $(kv "$line" ratio_median) ($(kv "$line" ratio_all | sed 's/,/, /g')) | $(fair_median "fair_k${k}_" pg_cpu_s_per_1k) | $(fair_median "fair_k${k}_" broker_cpu_s_per_1k) | $(fair_median "fair_k${k}_" seconds) |"
  done
  echo
}
fair_lines() { [ -n "$fair_out" ] && grep -E '^RESULT (drain round=fair|fair)' "$fair_out" || true; }

# with BENCH_DB_URL, after the sustained phases: a broker on that database and these
ext_fair_phase() {
  start_broker $DB_RP
  between="$(between_cmd $DB_RP)"
  log "fair queues on BENCH_DB_URL's database$(db_flavor_label): warm-up, then $fair_repeat times a plain drain of $n and fair queues of $fair_keys keys"
  fair_drains
  stop_broker
}

# BENCH_ONLY_FAIR=1: only a broker and these (report <stamp>-fair.md), shared mode
fair_only() {
  fresh_db $DB_RP
  start_broker $DB_RP
  between="$(between_cmd $DB_RP)"
  log "fair only: warm-up, then $fair_repeat times a plain drain of $n and fair queues of $fair_keys keys"
  fair_drains
  check_pg
  stop_broker
  drop_db $DB_RP
  report="$here/results/$stamp-fair.md"
  mkdir -p "$here/results"
  {
    echo "# Readpast benchmark $stamp ($mode, fair queues only: BENCH_ONLY_FAIR=1), commit ${git_commit:0:12}"
    echo
    echo "- $([ -n "${ext_url:-}" ] && echo "database: BENCH_DB_URL=${ext_url%%;*}$(db_flavor_label)" || echo "PostgreSQL: $(pgval -d postgres -c 'select version()'); autovacuum $(pgval -d postgres -c 'show autovacuum')"); commit $git_commit; $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')); machine CPU used by other processes during the drains (median CPU-s): $(fair_median fair other_cpu_s)"
    echo
    fair_report
    echo '```'
    fair_lines
    echo '```'
  } > "$report"
  cat "$report"
  local k
  for k in $fair_keys; do
    echo "fair-ratio-to-plain keys=$k: $(kv "$(grep "^RESULT fair keys=$k " "$fair_out")" ratio_median)"
  done
}
