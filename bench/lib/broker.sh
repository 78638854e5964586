# The broker and the Driver (sourced by bench/run): a copy of target/quarkus-app started on a
# database of the bench's PostgreSQL, in the current mode (modes.sh), and the load generator
# compiled once from bench/Driver.java and bench/driver/.
#
# BENCH_JFR=1: each JVM broker starts with a flight recording (-XX:StartFlightRecording,
# settings=profile: JFR is set up while the broker starts, not inside a phase), and each sustained
# phase records one of its own (jfr_start, jfr_stop) into $tmp/jfr/<mode>-<phase>-<pid>.jfr (the
# run's temporary directory is then kept); the report lists the files and each mode's "max1" and
# "p50load1" phase's hottest methods (jfr view hot-methods).

broker_pid=""
extra_pids=""  # the second and third brokers, and HAProxy (cleanup stops them)
jfr_files=()

copy_app() {
  src_app="${BENCH_APP:-$root/target/quarkus-app}"
  if [ -n "${BENCH_APP:-}" ]; then
    [ -f "$src_app/quarkus-run.jar" ] || fail "BENCH_APP=$src_app has no quarkus-run.jar"
  elif [ ! -f "$root/target/quarkus-app/quarkus-run.jar" ]; then
    log "target/quarkus-app/quarkus-run.jar missing: building (./mvnw -B -q package -DskipTests)"
    (cd "$root" && ./mvnw -B -q package -DskipTests) >&2
  fi
  # copy the broker so that a rebuild of target/ by someone else cannot disturb the run; retry
  # when target/quarkus-app changed while it was being copied
  app="$tmp/app"
  local attempt
  for attempt in 1 2 3 4 5 6; do
    rm -rf "$app"
    if cp -r "$src_app" "$app" 2>/dev/null && [ -f "$app/quarkus-run.jar" ] \
        && diff -rq "$src_app" "$app" >/dev/null 2>&1; then
      break
    fi
    [ "$attempt" = 6 ] && fail "could not copy a stable target/quarkus-app (is a build running?)"
    log "target/quarkus-app changed while copying it (a build running?): retrying in 10 s"
    sleep 10
  done
  jar_time="$(date -u -r "$app/quarkus-run.jar" +%Y-%m-%dT%H:%M:%SZ)"
}

# bench/Driver.java and bench/driver/**, compiled once against the copied broker's jars (Jackson,
# pgjdbc, and the broker's own classes for the JDBC ceiling)
compile_driver() {
  driver_classes="$tmp/driver-classes"
  mkdir -p "$driver_classes"
  "$JAVA_HOME/bin/javac" -nowarn -d "$driver_classes" -cp "$app/lib/main/*:$app/app/*" \
      "$here/Driver.java" $(find "$here/driver" -name '*.java' | sort) >&2 \
    || fail "the Driver did not compile"
  driver_cp="$driver_classes:$app/lib/main/*:$app/app/*"
}

start_broker() { # $1 database, $2 the native runner (default: the JVM jar)
  local db="$1" native="${2:-}" port
  port="$(free_port)"
  local -a jfr=()
  if [ "${BENCH_JFR:-0}" = 1 ] && [ -z "$native" ]; then
    mkdir -p "$tmp/jfr"
    jfr=("-XX:StartFlightRecording=name=startup,settings=profile,maxage=5m")
  fi
  local -a cmd=("$JAVA" ${BENCH_BROKER_JAVA_OPTS:-} "${jfr[@]}" -jar "$app/quarkus-run.jar")
  [ -n "$native" ] && cmd=("$native")
  local dburl="${ext_url:-jdbc:postgresql://$PGHOST:$PGPORT/$db}"
  broker_log="$tmp/broker-$db-${cur_mode:-shared}-$port.log"
  (cd "$tmp" && exec env READPAST_DB_URL="$dburl" READPAST_DB_USERNAME="${BENCH_DB_USERNAME:-$PGUSER}" \
      READPAST_DB_PASSWORD="${BENCH_DB_PASSWORD:-${PGPASSWORD:-}}" READPAST_AUTH_ENABLED=false READPAST_EMBEDDED=false \
      QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$port" "${app_prefix[@]}" "${cmd[@]}") > "$broker_log" 2>&1 &
  broker_pid=$!
  url="http://127.0.0.1:$port"
  for _ in $(seq 1 600); do
    if curl -sf "$url/q/health/ready" >/dev/null 2>&1; then
      log "broker pid $broker_pid ready on $url ($db, mode ${cur_mode:-shared})"
      log_pinned "$broker_pid" broker
      return
    fi
    kill -0 "$broker_pid" 2>/dev/null || { tail -20 "$broker_log" >&2; fail "broker exited at start-up"; }
    sleep 0.1
  done
  tail -20 "$broker_log" >&2
  fail "broker not ready after 60 s"
}

stop_broker() {
  if [ -n "$broker_pid" ] && kill -0 "$broker_pid" 2>/dev/null; then
    kill -TERM "$broker_pid" 2>/dev/null || true
    for _ in $(seq 1 150); do kill -0 "$broker_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
  fi
  broker_pid=""
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

# the Driver against the broker at $url, in the current mode
driver() {
  run_child "${app_prefix[@]}" "$JAVA" -cp "$driver_cp" Driver "$@" --url "$url" --clk-tck "$CLK_TCK"
}

# BENCH_JFR=1: a flight recording of each JVM broker of $2 (comma list; others are skipped) for
# one phase: jfr_start before it, jfr_stop after it writes $tmp/jfr/$1-<pid>.jfr
jfr_pids() { local p; for p in ${1//,/ }; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = java ] && echo "$p"; done; return 0; }
jfr_start() { # $1 phase name, $2 broker pids
  [ "${BENCH_JFR:-0}" = 1 ] || return 0
  local p
  for p in $(jfr_pids "$2"); do
    "$JAVA_HOME/bin/jcmd" "$p" JFR.start name="$1" settings=profile >/dev/null 2>&1 \
      || log "JFR: JFR.start in broker $p failed"
  done
}
jfr_stop() { # $1 phase name, $2 broker pids
  [ "${BENCH_JFR:-0}" = 1 ] || return 0
  local p f
  for p in $(jfr_pids "$2"); do
    f="$tmp/jfr/$1-$p.jfr"
    if "$JAVA_HOME/bin/jcmd" "$p" JFR.stop name="$1" filename="$f" >/dev/null 2>"$f.err" && [ -s "$f" ]; then
      jfr_files+=("$f")
      rm -f "$f.err"
      log "JFR: $f"
    else
      log "JFR: JFR.stop in broker $p failed: $(tail -1 "$f.err")"
    fi
  done
}
