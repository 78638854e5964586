# ==== The worker libraries (clients/python, typescript, go, java) against the Driver ============
# (sourced by bench/run). BENCH_CLIENTS=1 (the default of the full run; 0 with --quick): each
# library's worker, with a no-op handler, drains N jobs on a broker of its own on the bench's
# PostgreSQL, interleaved with bench/Driver.java's drain of N on the same broker, $reps times
# (clients/conformance/run --bench N, which builds the libraries and their agents first; extra
# arguments in BENCH_CLIENTS_ARGS, e.g. "--skip-build" or "--only go,java"). Targets: the median
# ratio to the Driver >= 0.8 for Go and Java, >= 0.5 for Python and TypeScript. Runs in the
# current mode: in split, the conformance run (its broker, the agents and the Driver) on the
# application's CPU. Sets C[<lib>] (its "RESULT bench who=<lib> ..." line, or why there is none)
# and clients_skip (why nothing ran).

declare -A C=()
clients_skip=""
client_libs="go java python typescript"
client_target() { case "$1" in go|java) echo 0.8 ;; *) echo 0.5 ;; esac; }

clients_phase() {
  local run="$root/clients/conformance/run" lib out="$tmp/clients.out" line
  if [ "${BENCH_CLIENTS:-$([ "$quick" = 1 ] && echo 0 || echo 1)}" != 1 ]; then
    clients_skip="BENCH_CLIENTS is not 1 (the full run's default is 1, --quick's 0)"
  elif [ -n "${ext_url:-}" ]; then
    clients_skip="BENCH_DB_URL is set (the conformance run needs a PostgreSQL it can create a database on)"
  elif [ ! -x "$run" ] || ! grep -q -- '--bench' "$run"; then
    clients_skip="clients/conformance/run has no --bench mode (the worker libraries' no-op drain)"
  fi
  if [ -n "$clients_skip" ]; then
    echo "SKIP clients: $clients_skip" >&2
    return 0
  fi
  clients_mode="$cur_mode"
  local db="${dbp}clients"
  DBS="$DBS $db"
  log "clients ($cur_mode): clients/conformance/run --bench $n ${BENCH_CLIENTS_ARGS:-} ($reps repetitions)"
  # shellcheck disable=SC2086
  if ! READPAST_CLIENTS_DB_URL="jdbc:postgresql://$PGHOST:$PGPORT/$db" READPAST_CLIENTS_DB_USERNAME="$PGUSER" \
      READPAST_JAR="$app/quarkus-run.jar" RP_BENCH_REPEAT="$reps" JAVA_HOME="$JAVA_HOME" \
      run_child timeout "${BENCH_CLIENTS_TIMEOUT_S:-3600}" "${app_prefix[@]}" python3 "$run" --bench "$n" ${BENCH_CLIENTS_ARGS:-} \
      > "$out" 2>&1; then
    log "clients: the conformance run failed: $(tail -3 "$out" | tr '\n' ' ')"
  fi
  drop_db "$db"
  for lib in $client_libs; do
    line="$(grep -m1 "^RESULT bench who=$lib " "$out" || true)"
    if [ -z "$line" ]; then
      line="$(grep -m1 -E "^(FAIL $lib|$lib: bench failed)" "$out" \
        || echo "no result: the conformance run did not run it${BENCH_CLIENTS_ARGS:+ (BENCH_CLIENTS_ARGS=$BENCH_CLIENTS_ARGS)} or failed: $(tail -1 "$out")")"
    fi
    C[$lib]="$line"
    log "clients: $lib: $line"
  done
}
