# What the bench needs, installed when missing (sourced by bench/run), as .ci/run does: Debian's
# packages through apt-get (as root), the peers' npm packages through npm ci, the Java peers
# through Maven. What cannot be installed is not fatal where a row can be skipped: the reason is
# kept in skip_reason[<what>], and the figures that need it are reported as MISSED with it.

declare -A skip_reason=()

apt_install() { # $@ Debian packages; returns non-zero (and says why) when they could not be installed
  if [ "$(id -u)" != 0 ]; then
    log "missing: $* (not root: install them with apt-get)"; return 1
  fi
  command -v apt-get >/dev/null || { log "missing: $* (no apt-get)"; return 1; }
  log "installing $* (apt-get)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >"$tmp/apt.log" 2>&1; then
    log "apt-get install $* failed: $(tail -3 "$tmp/apt.log" | tr '\n' ' ')"
    return 1
  fi
}

ensure_prerequisites() {
  local need=() p
  command -v python3 >/dev/null || need+=(python3)
  command -v curl >/dev/null || need+=(curl)
  command -v perl >/dev/null || need+=(perl)
  command -v taskset >/dev/null || need+=(util-linux)
  if [ "${BENCH_THREE:-1}" = 1 ]; then command -v haproxy >/dev/null || need+=(haproxy); fi
  if [ -z "${ext_url:-}" ]; then
    command -v psql >/dev/null || need+=(postgresql-client)
    command -v pgbench >/dev/null || need+=(postgresql-client)
    if [ "${BENCH_SERVER:-0}" != 1 ] && ! command -v pg_createcluster >/dev/null; then need+=(postgresql); fi
  fi
  if [ ${#need[@]} -gt 0 ]; then
    # shellcheck disable=SC2207
    need=($(printf '%s\n' "${need[@]}" | sort -u))
    apt_install "${need[@]}" || true
  fi
  command -v python3 >/dev/null && command -v curl >/dev/null && command -v perl >/dev/null \
    || fail "python3, curl and perl are needed (and could not be installed)"
  command -v taskset >/dev/null || skip_reason[taskset]="taskset (util-linux) is missing and could not be installed"
  command -v haproxy >/dev/null || skip_reason[haproxy]="haproxy is missing and could not be installed (apt-get install haproxy)"
  if [ -z "${ext_url:-}" ]; then
    command -v pgbench >/dev/null || fail "pgbench is missing and could not be installed (postgresql-client)"
  fi

  # the peers: graphile-worker (sustained and the B = 50 drain) and pg-boss from npm, db-scheduler
  # and JobRunr through Maven; built here, before anything is timed (run-peer.sh would otherwise
  # build them on first use)
  local node_peers=0 java_peers=0
  for p in $peer_list; do
    case "$p" in graphile-worker|graphile|pg-boss|pgboss) node_peers=1 ;; db-scheduler|dbscheduler|jobrunr) java_peers=1 ;; esac
  done
  # only graphile-worker runs in the sustained phases, and no peer with the fair queues alone
  [ "${only_sustained:-0}" != 1 ] || java_peers=0
  [ "${BENCH_ONLY_FAIR:-0}" != 1 ] || { node_peers=0; java_peers=0; }
  if [ "$node_peers" = 1 ]; then
    local nm="$here/peers/node"
    if [ ! -f "$nm/node_modules/.package-lock.json" ] || [ "$nm/package-lock.json" -nt "$nm/node_modules/.package-lock.json" ]; then
      if ! command -v npm >/dev/null; then
        skip_reason[node-peers]="npm is missing: graphile-worker and pg-boss cannot be installed (Node.js 20+ with npm is needed)"
      else
        log "peers: npm ci in bench/peers/node (graphile-worker, pg-boss)"
        (cd "$nm" && npm ci --no-audit --no-fund --loglevel=error) >"$tmp/npm.log" 2>&1 \
          || skip_reason[node-peers]="npm ci in bench/peers/node failed: $(tail -2 "$tmp/npm.log" | tr '\n' ' ')"
      fi
    fi
  fi
  if [ "$java_peers" = 1 ]; then
    local jar="$here/peers/java/target/peers.jar"
    if [ ! -f "$jar" ] || [ -n "$(find "$here/peers/java/pom.xml" "$here/peers/java/src" -newer "$jar" -print -quit)" ]; then
      if ! command -v mvn >/dev/null; then
        apt_install maven || true
      fi
      if command -v mvn >/dev/null; then
        log "peers: building bench/peers/java (db-scheduler, JobRunr)"
        JAVA_HOME="$JAVA_HOME" mvn -q -B -f "$here/peers/java/pom.xml" package >"$tmp/mvn-peers.log" 2>&1 \
          || skip_reason[java-peers]="the Java peers did not build: $(grep -m1 ERROR "$tmp/mvn-peers.log" || tail -1 "$tmp/mvn-peers.log")"
      else
        skip_reason[java-peers]="mvn is missing and could not be installed: db-scheduler and JobRunr cannot be built"
      fi
    fi
  fi
  for p in "${!skip_reason[@]}"; do log "SKIP $p: ${skip_reason[$p]}"; done
}
