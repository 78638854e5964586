# Helpers every part of bench/run uses (sourced by it): logging, psql, arithmetic, RESULT lines,
# child processes, CPU ticks from /proc, free ports.

log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }
psqlq() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
pgval() { psql -X -At -v ON_ERROR_STOP=1 "$@"; }
drop_db() { psqlq -d postgres -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" 2>/dev/null || true; }
fresh_db() { drop_db "$1"; psqlq -d postgres -c "CREATE DATABASE $1"; }
# One value of a query on database $1 of the bench's PostgreSQL, or, with BENCH_DB_URL, on that
# database through JDBC (the Driver's sql mode: psql cannot reach a SQL Server)
dbval() { # $1 database, $2 query
  if [ -n "${ext_url:-}" ]; then
    "$JAVA" -cp "$driver_cp" Driver sql --jdbc "$ext_url" --db-user "${BENCH_DB_USERNAME:-$PGUSER}" \
      --db-password "${BENCH_DB_PASSWORD:-${PGPASSWORD:-}}" --query "$2"
  else
    pgval -d "$1" -c "$2"
  fi
}
# What engine BENCH_DB_URL's database is, for the report's labels: ", Babelfish <version>" when it
# is Babelfish for PostgreSQL (its figures are Babelfish's, not SQL Server's), ", SQL Server
# <version>", or ", PostgreSQL <version>"; computed once
db_flavor=""
db_flavor_label() {
  if [ -z "$db_flavor" ] && [ -n "${ext_url:-}" ]; then
    case "$ext_url" in
      jdbc:sqlserver:*)
        if [ -n "$(dbval - "SELECT CAST(SERVERPROPERTY('babelfish') AS nvarchar(20))" 2>/dev/null | grep -iv '^null$')" ]; then
          db_flavor=", Babelfish $(dbval - "SELECT CAST(SERVERPROPERTY('BabelfishVersion') AS nvarchar(40))" 2>/dev/null)"
        else
          db_flavor=", SQL Server $(dbval - "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(40))" 2>/dev/null)"
        fi ;;
      *) db_flavor=", PostgreSQL $(dbval - "SHOW server_version" 2>/dev/null)" ;;
    esac
  fi
  printf '%s' "$db_flavor"
}
# The command (a string for bash -c) that refreshes database $1's statistics and checkpoints
# between a drain's rounds: VACUUM ANALYZE and CHECKPOINT with psql; with BENCH_DB_URL, through
# JDBC, and on SQL Server UPDATE STATISTICS of the hot table and CHECKPOINT
between_cmd() { # $1 database
  if [ -n "${ext_url:-}" ]; then
    local q="VACUUM ANALYZE"
    case "$ext_url" in jdbc:sqlserver:*) q="UPDATE STATISTICS readpast_job; CHECKPOINT;" ;; esac
    printf '%q ' "$JAVA" -cp "$driver_cp" Driver sql --jdbc "$ext_url" --db-user "${BENCH_DB_USERNAME:-$PGUSER}" \
      --db-password "${BENCH_DB_PASSWORD:-${PGPASSWORD:-}}" --query "$q"
    printf '>&2'
  else
    printf '%s' "psql -X -q -v ON_ERROR_STOP=1 -d $1 -c 'VACUUM ANALYZE' -c CHECKPOINT >&2"
  fi
}
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
# value of key=... in a RESULT line
kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
# the median of the numbers given as arguments ("n/a" when none)
median() {
  [ $# -gt 0 ] || { echo n/a; return; }
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR % 2) printf "%.6g", v[(NR + 1) / 2]; else printf "%.6g", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# the largest of the numbers given as arguments ("n/a" when none)
maximum() {
  [ $# -gt 0 ] || { echo n/a; return; }
  printf '%s\n' "$@" | sort -g | tail -1
}
# true when $1 is a number
is_num() { [[ "$1" =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

child_pid=""
# runs a command as a background child and waits for it, so that a signal to this script is
# handled at once (the trap then stops the child) instead of after the child has finished
run_child() {
  "$@" &
  child_pid=$!
  local rc=0
  wait "$child_pid" || rc=$?
  child_pid=""
  return $rc
}

# CPU ticks of every PostgreSQL process: the postmaster, its live children, and the
# postmaster's cutime+cstime (children that exited and were reaped).
pg_ticks() {
  local sum=0 f line rest
  for f in /proc/[0-9]*/stat; do
    { read -r line < "$f"; } 2>/dev/null || continue
    rest="${line##*) }"
    # shellcheck disable=SC2086
    set -- $rest
    if [ "${f//[^0-9]/}" = "$postmaster" ]; then
      sum=$((sum + ${12} + ${13} + ${14} + ${15}))
    elif [ "$2" = "$postmaster" ]; then
      sum=$((sum + ${12} + ${13}))
    fi
  done
  echo "$sum"
}

# busy CPU ticks of the whole machine (all of /proc/stat's cpu line but idle and iowait)
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

free_port() {
  local p
  if [ -n "$bench_port" ]; then
    (exec 3<>"/dev/tcp/127.0.0.1/$bench_port") 2>/dev/null && fail "BENCH_PORT $bench_port is in use"
    echo "$bench_port"; return
  fi
  for _ in $(seq 1 100); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  fail "no free port"
}
