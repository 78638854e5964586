# The figures of a run and their targets (sourced by bench/run), per mode: what the last lines of
# bench/run print ("<mode> <figure>: <value>") and the report's "Figures and targets" table.
#
#   ratio-to-graphile                   sustained maximum / graphile-worker's (median of the repetitions' ratios)
#   ratio-to-ceiling                    sustained maximum / the sustained pgbench ceiling (idem)
#   p99-ms-at-half-load                 enqueue-to-claim p99 at 50% of the mode's maximum: the worst run's
#   brokers3-over-1                     three brokers behind HAProxy / one (median of the repetitions' ratios)
#   b50-drain-ratio-to-graphile         drain of N at B = 50 / graphile-worker's drain of N (idem)
#   idle-tx-per-s                       100 long-polls on an empty queue: the database's transactions/s
#   broker-cpu-s-per-1000-at-half-load  the broker's CPU-s per 1000 jobs at 50% load (median of the runs)
#
# A figure that could not be measured (a mode, a peer or HAProxy skipped, a phase failed) is "n/a"
# and, where it has a target, MISSED, with the reason.

figure_names="ratio-to-graphile ratio-to-ceiling p99-ms-at-half-load brokers3-over-1 b50-drain-ratio-to-graphile idle-tx-per-s broker-cpu-s-per-1000-at-half-load"
declare -A F=() FT=() FS=() FN=()  # value, target, status, note by "<mode> <figure>"

# the target of a figure in a mode: "<op> <value>" or "" (reported only)
figure_target() { # $1 mode, $2 figure
  case "$2" in
    ratio-to-graphile) echo ">= 1.2" ;;
    ratio-to-ceiling) [ "$1" = split ] && echo ">= 0.8" ;;
    p99-ms-at-half-load) [ "$1" = split ] && echo "<= 10" ;;
    brokers3-over-1) [ "$1" = split ] && echo ">= 1.0" ;;
    b50-drain-ratio-to-graphile) echo ">= 1.2" ;;
    idle-tx-per-s) echo "<= 0.5" ;;
    broker-cpu-s-per-1000-at-half-load) echo "<= 0.12" ;;
  esac
  return 0
}

set_figure() { # $1 mode, $2 figure, $3 value (or n/a), $4 note
  local key="$1 $2" t
  t="$(figure_target "$1" "$2")"
  F[$key]="$3" FT[$key]="${t:--}" FN[$key]="$4"
  if [ -z "$t" ]; then
    FS[$key]="REPORTED"
  elif ! is_num "$3"; then
    FS[$key]="MISSED"
  elif awk -v v="$3" -v op="${t%% *}" -v x="${t##* }" 'BEGIN { exit !((op == ">=" && v >= x) || (op == "<=" && v <= x)) }'; then
    FS[$key]="MET"
  else
    FS[$key]="MISSED"
  fi
}

# median over the repetitions of the ratio of field jobs_per_s of S/D[$1|$2|rep] to that of $3|rep;
# sets ratio_value and ratio_note (every repetition's ratio, or why there is none)
ratio_over_reps() { # $1 array name (S or D), $2 mode, $3 numerator key, $4 denominator key
  local -n arr="$1"
  local rep a d rs=() why=""
  for rep in $(seq 1 "$reps"); do
    a="${arr[$2|$3|$rep]:-}" d="${arr[$2|$4|$rep]:-}"
    if [[ "$a" == RESULT* ]] && [[ "$d" == RESULT* ]] && is_num "$(kv "$a" jobs_per_s)" && is_num "$(kv "$d" jobs_per_s)"; then
      rs+=("$(calc %.3f "$(kv "$a" jobs_per_s) / $(kv "$d" jobs_per_s)")")
    else
      [ -n "$why" ] || why="$([[ "$a" == RESULT* ]] && echo "${d:-not run}" || echo "${a:-not run}")"
    fi
  done
  if [ ${#rs[@]} -eq 0 ]; then
    ratio_value="n/a" ratio_note="$why"
  else
    ratio_value="$(calc %.2f "$(median "${rs[@]}")")"
    ratio_note="median of ${#rs[@]}: $(printf '%s ' "${rs[@]}" | sed 's/ $//; s/ /, /g')${why:+; missing: $why}"
  fi
}

compute_figures() {
  local m f rep line v p99s=() dues=() lates=() cpus=() rs=() best
  for m in $modes; do
    if [ -n "${mode_skip[$m]:-}" ]; then
      for f in $figure_names; do set_figure "$m" "$f" n/a "mode $m skipped: ${mode_skip[$m]}"; done
      continue
    fi
    # sustained maximum / graphile-worker's
    ratio_over_reps S "$m" max graphile
    set_figure "$m" ratio-to-graphile "$ratio_value" "$ratio_note"
    # sustained maximum / ceiling: the ceiling of a repetition is its best client count
    rs=()
    for rep in $(seq 1 "$reps"); do
      best="${S[$m|ceil_best|$rep]:-0}" line="${S[$m|max|$rep]:-}"
      if [ "$best" != 0 ] && [[ "$line" == RESULT* ]]; then rs+=("$(calc %.3f "$(kv "$line" jobs_per_s) / $best")"); fi
    done
    if [ ${#rs[@]} -gt 0 ]; then
      set_figure "$m" ratio-to-ceiling "$(calc %.2f "$(median "${rs[@]}")")" "median of ${#rs[@]}: $(printf '%s ' "${rs[@]}" | sed 's/ $//; s/ /, /g')"
    else
      set_figure "$m" ratio-to-ceiling n/a "no sustained ceiling or maximum"
    fi
    # the rate runs at 50%
    p99s=() dues=() lates=() cpus=()
    while read -r line; do
      [[ "$line" == RESULT* ]] && [[ "$(kv "$line" label)" == p50load* ]] || continue
      p99s+=("$(kv "$line" p99_ms)") dues+=("$(kv "$line" p99_due_ms)") lates+=("$(kv "$line" late_ms_p99)")
      cpus+=("$(kv "$line" broker_cpu_s_per_1k)")
    done <<<"${S[$m|rate]:-}"
    if [ ${#p99s[@]} -gt 0 ]; then
      set_figure "$m" p99-ms-at-half-load "$(maximum "${p99s[@]}")" "the worst of ${#p99s[@]} runs: $(printf '%s ' "${p99s[@]}" | sed 's/ $//; s/ /, /g') ms; counted from each request's due time instead of its send: $(printf '%s ' "${dues[@]}" | sed 's/ $//; s/ /, /g') ms (producers' lateness p99 $(printf '%s ' "${lates[@]}" | sed 's/ $//; s/ /, /g') ms)"
      set_figure "$m" broker-cpu-s-per-1000-at-half-load "$(calc %.3f "$(median "${cpus[@]}")")" "median of ${#cpus[@]}: $(printf '%s ' "${cpus[@]}" | sed 's/ $//; s/ /, /g')"
    else
      set_figure "$m" p99-ms-at-half-load n/a "no run at 50% load"
      set_figure "$m" broker-cpu-s-per-1000-at-half-load n/a "no run at 50% load"
    fi
    ratio_over_reps S "$m" three max
    set_figure "$m" brokers3-over-1 "$ratio_value" "$ratio_note"
    ratio_over_reps D "$m" alt gdrain
    [ "$alt_b" != 0 ] && [ "$alt_b" != "$b" ] || ratio_note="BENCH_ALT_B=$alt_b: no drain at B = 50 beside B = $b"
    set_figure "$m" b50-drain-ratio-to-graphile "$ratio_value" "B = $alt_b, N = $n; $ratio_note"
    line="${I[$m]:-}"
    if [[ "$line" == RESULT* ]]; then
      set_figure "$m" idle-tx-per-s "$(kv "$line" transactions_per_s)" "$(kv "$line" transactions) transactions in $(kv "$line" window_s) s"
    else
      set_figure "$m" idle-tx-per-s n/a "${line:-not run}"
    fi
  done
  if [ "$only_sustained" = 1 ]; then
    for m in $modes; do
      for f in b50-drain-ratio-to-graphile idle-tx-per-s; do set_figure "$m" "$f" n/a "not run: BENCH_ONLY_SUSTAINED=1"; done
    done
  fi
}

# the worker libraries' figures (clients.sh), in the mode they ran in
compute_client_figures() {
  local lib line key
  for lib in $client_libs; do
    key="$clients_mode client-$lib-ratio-to-driver"
    line="${C[$lib]:-}"
    FT[$key]=">= $(client_target "$lib")"
    if [[ "$line" == "RESULT bench"* ]] && is_num "$(kv "$line" ratio_to_driver_median)"; then
      F[$key]="$(kv "$line" ratio_to_driver_median)" FN[$key]="$(kv "$line" jobs_per_s_median) jobs/s (median; all $(kv "$line" all))"
      awk -v v="${F[$key]}" -v x="$(client_target "$lib")" 'BEGIN { exit !(v >= x) }' && FS[$key]=MET || FS[$key]=MISSED
    else
      F[$key]="n/a" FS[$key]=MISSED FN[$key]="${clients_skip:-${line:-not run}}"
    fi
  done
}

# the figures' keys in the order they are printed
figure_keys() {
  local m f lib
  for m in $modes; do for f in $figure_names; do echo "$m $f"; done; done
  if [ -n "${clients_mode:-}" ] && [ -z "$clients_skip" ]; then
    for lib in $client_libs; do echo "$clients_mode client-$lib-ratio-to-driver"; done
  fi
}

figures_table() {
  echo "| mode | figure | value | target | status | runs, or why not measured |"
  echo "| --- | --- | ---: | --- | --- | --- |"
  local k
  while read -r k; do
    echo "| ${k%% *} | ${k#* } | ${F[$k]} | ${FT[$k]} | **${FS[$k]}** | ${FN[$k]} |"
  done < <(figure_keys)
}

# the last lines of the run: each figure with its target, then "<mode> <figure>: <value>"
figures_lines() {
  local k
  echo
  echo "targets ($mode run$([ "$reps" -lt 3 ] && echo "; $reps repetition(s) per ratio and $sus_runs50 run(s) at half load, where the full run takes the median of 3 and 3 runs"))"
  [ -n "$clients_skip" ] && echo "SKIP clients: $clients_skip"
  while read -r k; do
    printf '  %-50s %10s  target %-8s %-8s %s\n' "$k" "${F[$k]}" "${FT[$k]}" "${FS[$k]}" "${FN[$k]}"
  done < <(figure_keys)
  echo
  while read -r k; do
    echo "$k: ${F[$k]}"
  done < <(figure_keys)
}
