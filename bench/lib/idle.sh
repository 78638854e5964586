# The idle cost (sourced by bench/run), in the current mode: a fresh broker and 100 workers
# long-polling an empty (existing) queue; after $idle_settle s, the broker database's
# transactions (pg_stat_database, read from another database so the reading does not count) over
# $idle_window s. Sets I[<mode>] (its RESULT line).
declare -A I=()
idle_phase() {
  local m="$cur_mode" x0 x1 i0 i1 idle_driver line tps
  log "idle ($m): $DB_IDLE, 100 long-polling workers, ${idle_settle}s settling, then ${idle_window}s counted"
  fresh_db $DB_IDLE
  start_broker $DB_IDLE
  # the workers poll a queue that exists and is empty (PUT /queues makes it)
  curl -sf -X PUT -H 'Content-Type: application/json' -d '{"paused": false}' "$url/queues/idle" >/dev/null \
    || fail "idle: PUT /queues/idle"
  xacts() { pgval -d postgres -c "select xact_commit + xact_rollback from pg_stat_database where datname = '$DB_IDLE'"; }
  driver idle --workers 100 --seconds "$((idle_settle + idle_window + 2))" --queue idle > "$tmp/idle-$m.out" &
  idle_driver=$!
  sleep "$idle_settle"
  x0="$(xacts)"; i0=$(date +%s.%N)
  sleep "$idle_window"
  sleep 1.5 # backends report their counts about once a second
  x1="$(xacts)"; i1=$(date +%s.%N)
  wait "$idle_driver" || fail "driver idle"
  line="$(grep '^RESULT idle' "$tmp/idle-$m.out")"
  tps="$(calc %.2f "($x1 - $x0) / ($i1 - $i0)")"
  I[$m]="$line transactions=$((x1 - x0)) window_s=$(calc %.1f "$i1 - $i0") transactions_per_s=$tps mode=$m"
  log "idle: ${I[$m]}"
  stop_broker
  drop_db $DB_IDLE
}
