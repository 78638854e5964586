# The peers' drains (sourced by bench/run), shared mode: bench/peers/run-peer.sh <peer> N W for
# each peer of the run but graphile-worker when the drain phase already ran it (its row is then
# the median of those runs). Sets peer_lines.
peers_phase() {
  peer_lines=()
  local p pdb out line reason
  for p in $peer_list; do
    case "$p" in
      db-scheduler|dbscheduler) pdb=${dbp}dbscheduler ;; jobrunr) pdb=${dbp}jobrunr ;;
      graphile-worker|graphile) pdb=${dbp}graphile ;; pg-boss|pgboss) pdb=${dbp}pgboss ;; *) pdb="" ;;
    esac
    if [[ "$p" == graphile* ]] && [ -n "${D[shared|gdrain|1]:-}" ]; then
      peer_lines+=("$(graphile_drain_median shared)")
      continue
    fi
    case "$p" in
      db-scheduler|dbscheduler|jobrunr) reason="${skip_reason[java-peers]:-}" ;;
      *) reason="${skip_reason[node-peers]:-}" ;;
    esac
    if [ -n "$reason" ]; then
      peer_lines+=("FAILED peer=$p SKIPPED: $reason"); continue
    fi
    peer_dbs="$peer_dbs $pdb"
    log "peer $p: run-peer.sh $p $n $w"
    out="$tmp/peer-$p.out"
    if BENCH_JDBC_URL="jdbc:postgresql://$PGHOST:$PGPORT/postgres" BENCH_DB_USER="$PGUSER" BENCH_DB_NAME="$pdb" \
        BENCH_TIMEOUT_S="${BENCH_TIMEOUT_S:-600}" run_child "$here/peers/run-peer.sh" "$p" "$n" "$w" > "$out" 2> "$out.err"; then
      line="$(grep '^RESULT peer=' "$out" | tail -1)"
    else
      line=""
    fi
    if [ -z "$line" ]; then
      reason="$(grep -m1 FAILED "$out.err" || tail -1 "$out.err")"
      line="FAILED peer=$p $reason"
    fi
    log "peer $p: $line"
    peer_lines+=("$line")
    if [ -n "$pdb" ]; then drop_db "$pdb"; fi
  done
}

# of the graphile-worker drains of mode $1 (drain.sh), the one with the median jobs/s
graphile_drain_median() {
  local rep lines=() med
  for rep in $(seq 1 "$reps"); do
    [[ "${D[$1|gdrain|$rep]:-}" == RESULT* ]] && lines+=("${D[$1|gdrain|$rep]}")
  done
  [ ${#lines[@]} -gt 0 ] || { echo "${D[$1|gdrain|1]}"; return; }
  med="$(printf '%s\n' "${lines[@]}" | sed -n 's/.* jobs_per_s=\([^ ]*\).*/\1/p' | sort -g | sed -n "$(( (${#lines[@]} + 1) / 2 ))p")"
  printf '%s\n' "${lines[@]}" | grep -m1 " jobs_per_s=$med "
}
