# The drain (sourced by bench/run): N jobs enqueued first, then drained by W workers (no
# producers meanwhile), on one warm broker, in the current mode. Results go to D[<mode>|<what>].
#
#   drain_phase   a fresh broker on <prefix>readpast: untimed warm-up rounds (the first is the
#                 "cold" row), the timed drain at B; then $reps times a drain at B = $alt_b
#                 beside graphile-worker's drain of the same N (the b50-drain-ratio-to-graphile
#                 figure, a median of the repetitions); in the shared mode then the fair queues
#                 (fair.sh), the native binary (BENCH_NATIVE) and the latency at a light rate
#                 (latency.sh), on the same broker, as before.

declare -A D=()

# the Driver's throughput mode on the running broker, into $tmp/$1.out
drain_driver() { # $1 output name, then the Driver's options
  local name="$1"; shift
  # shellcheck disable=SC2046
  driver throughput --ack-claim "$([ "$ack_claim" = 1 ] && echo true || echo false)" --workers "$w" \
    --producers "$producers" --broker-pid "$broker_pid" --postmaster "$postmaster" --between-cmd "$between" \
    $(pgss_opts $DB_RP) "$@" > "$tmp/$name.out" \
    || fail "driver throughput $name (broker log: $(tail -5 "$broker_log"))"
}

archived() { dbval "$1" "select count(*) from readpast_job_archive where queue = '$2' and status = 3"; }

# graphile-worker drains N (bench/peers/run-peer.sh graphile) in the current mode; its RESULT
# line, or "FAILED peer=graphile-worker <reason>"
graphile_drain() { # $1 a name for its output
  case " $peer_list " in
    *" graphile-worker "*|*" graphile "*) ;;
    *) echo "FAILED peer=graphile-worker SKIPPED: not in the peers of this run (--peers)"; return 0 ;;
  esac
  if [ -n "${skip_reason[node-peers]:-}" ]; then echo "FAILED peer=graphile-worker SKIPPED: ${skip_reason[node-peers]}"; return 0; fi
  local pdb=${dbp}graphile out="$tmp/peer-graphile-$1.out" line=""
  if BENCH_JDBC_URL="jdbc:postgresql://$PGHOST:$PGPORT/postgres" BENCH_DB_USER="$PGUSER" BENCH_DB_NAME="$pdb" \
      BENCH_TIMEOUT_S="${BENCH_TIMEOUT_S:-600}" "${app_prefix[@]}" "$here/peers/run-peer.sh" graphile "$n" "$w" \
      > "$out" 2> "$out.err"; then
    line="$(grep '^RESULT peer=' "$out" | tail -1)"
  fi
  drop_db "$pdb"
  [ -n "$line" ] && echo "$line mode=$cur_mode" || echo "FAILED peer=graphile-worker $(grep -m1 FAILED "$out.err" || tail -1 "$out.err")"
}

drain_phase() {
  local m="$cur_mode" rep line a
  fresh_db $DB_RP
  start_broker $DB_RP
  log "readpast drain ($m): $([ "$warmup" -gt 0 ] && echo "untimed warm-up rounds of $warmup jobs for ${warmup_s}s, then ")enqueue $n (batches of 1000, $producers producers), drain with $w workers, claim limit $b"
  # VACUUM too: the dead rows of the warm-up rounds would otherwise weigh on the timed claims (the
  # shared server may run without autovacuum; the ceiling and the peers start from fresh tables)
  between="$(between_cmd $DB_RP)"
  drain_driver "throughput-$m" --n "$n" --warmup-jobs "$warmup" --warmup-seconds "$warmup_s" --batch "$b" --queue bench
  check_pg
  local out="$tmp/throughput-$m.out"
  D[$m|enq]="$(grep '^RESULT enqueue round=timed' "$out")"
  D[$m|drain]="$(grep '^RESULT drain round=timed' "$out") mode=$m"
  D[$m|threads]="$(grep '^RESULT broker_threads round=timed' "$out")"
  D[$m|cold_enq]="$(grep '^RESULT enqueue round=cold' "$out" || true)"
  D[$m|cold_drain]="$(grep '^RESULT drain round=cold' "$out" || true)"
  D[$m|cold_threads]="$(grep '^RESULT broker_threads round=cold' "$out" || true)"
  D[$m|statements]="$(grep '^STATEMENT' "$out" | sed "s/^STATEMENT label=/STATEMENT mode=$m label=/" || true)"
  a="$(archived $DB_RP bench)"
  local left; left="$(pgval -d $DB_RP -c "select count(*) from readpast_job where queue = 'bench'")"
  [ "$a" = "$n" ] && [ "$left" = 0 ] || fail "readpast: $a of $n jobs archived, $left left"
  if [ "$warmup" -gt 0 ]; then
    D[$m|warm]="$(grep '^RESULT warmup' "$out")"
    local warm_jobs; warm_jobs="$(kv "${D[$m|warm]}" jobs)"
    a="$(archived $DB_RP warmup)"
    [ "$a" = "$warm_jobs" ] || fail "readpast: warm-up rounds archived $a of $warm_jobs"
    log "readpast: ${D[$m|warm]}"
    log "readpast: ${D[$m|cold_drain]}"
  fi
  log "readpast: ${D[$m|enq]}"
  log "readpast: ${D[$m|drain]}"

  # the same warm broker drains N at B = alt_b, beside graphile-worker's drain of N, $reps times
  if [ "$alt_b" != 0 ] && [ "$alt_b" != "$b" ]; then
    peer_dbs="$peer_dbs ${dbp}graphile"
    for rep in $(seq 1 "$reps"); do
      drain_driver "throughput-alt-$m-$rep" --n "$n" --warmup-jobs 0 --batch "$alt_b" --queue "bench_alt_$rep"
      line="$(grep '^RESULT drain round=timed' "$tmp/throughput-alt-$m-$rep.out") mode=$m rep=$rep"
      a="$(archived $DB_RP "bench_alt_$rep")"
      [ "$a" = "$n" ] || fail "readpast B=$alt_b: $a of $n jobs archived"
      D[$m|alt|$rep]="$line"
      log "readpast B=$alt_b ($m, $rep/$reps): $line"
      D[$m|gdrain|$rep]="$(graphile_drain "$m-$rep")"
      log "graphile-worker drain ($m, $rep/$reps): ${D[$m|gdrain|$rep]}"
    done
  fi
  if [ "$m" = shared ]; then
    [ "${BENCH_FAIR:-1}" = 1 ] && fair_drains
    native_drain
    latency_phase
  fi
  stop_broker
  drop_db $DB_RP
}

# the native binary, the same drain (BENCH_NATIVE=target/readpast-*-runner), beside the JVM broker
native_drain() {
  native_drain_line=""
  [ -n "${BENCH_NATIVE:-}" ] || return 0
  [ -x "$BENCH_NATIVE" ] || fail "BENCH_NATIVE=$BENCH_NATIVE is not an executable native runner"
  local jvm_pid="$broker_pid" jvm_url="$url" jvm_log="$broker_log" native_pid
  fresh_db $DB_NATIVE
  start_broker $DB_NATIVE "$BENCH_NATIVE"
  native_pid="$broker_pid"
  local between_native; between_native="$(between_cmd $DB_NATIVE)"
  driver throughput --ack-claim "$([ "$ack_claim" = 1 ] && echo true || echo false)" --n "$n" --warmup-jobs "$warmup" --warmup-seconds "$warmup_s" --workers "$w" --batch "$b" --producers "$producers" --queue bench \
    --broker-pid "$native_pid" --postmaster "$postmaster" --between-cmd "$between_native" > "$tmp/throughput-native.out" \
    || fail "driver throughput, native (broker log: $(tail -5 "$broker_log"))"
  native_drain_line="$(grep '^RESULT drain round=timed' "$tmp/throughput-native.out")"
  local a; a="$(archived $DB_NATIVE bench)"
  [ "$a" = "$n" ] || fail "readpast native: $a of $n jobs archived"
  native_rss_kb="$(awk '/VmHWM/ { print $2 }' /proc/$native_pid/status 2>/dev/null || echo '?')"
  jvm_rss_kb="$(awk '/VmHWM/ { print $2 }' /proc/$jvm_pid/status 2>/dev/null || echo '?')"
  log "readpast native: $native_drain_line (peak RSS ${native_rss_kb} kB; the JVM broker's ${jvm_rss_kb} kB)"
  kill -TERM "$native_pid" 2>/dev/null || true
  wait "$native_pid" 2>/dev/null || true
  drop_db $DB_NATIVE
  broker_pid="$jvm_pid" url="$jvm_url" broker_log="$jvm_log"
}
