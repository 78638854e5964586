# The bench's PostgreSQL (sourced by bench/run).
#
# By default a cluster of its own, made as Debian's package makes one (pg_createcluster: the
# packaged defaults, autovacuum on, listening on localhost only) on a free port, with
# pg_stat_statements preloaded (BENCH_PGSS=0: not), and dropped at the end. BENCH_SERVER=1 (or
# --server) uses the server PGHOST/PGPORT name instead: nothing of it is pinned or reset, and the
# split mode is skipped. BENCH_DB_URL (a JDBC URL, e.g. jdbc:sqlserver://...): the Readpast
# sustained phases only, on the database it names.

own_cluster=""
pgss=0   # 1: pg_stat_statements is loaded in the bench's own cluster (statements per 1000 jobs)

create_own_cluster() {
  command -v pg_createcluster >/dev/null || fail "pg_createcluster is missing (postgresql-common); or set BENCH_SERVER=1"
  pg_version="${BENCH_PG_VERSION:-$(ls /usr/lib/postgresql | sort -V | tail -1)}"
  local own_port="${BENCH_PG_PORT:-}" p
  if [ -z "$own_port" ]; then
    for p in $(seq 55400 55499); do
      if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then own_port="$p"; break; fi
    done
  fi
  [ -n "$own_port" ] || fail "no free port for the bench's own PostgreSQL"
  own_cluster="bench$$"
  local opts=()
  if [ "${BENCH_PGSS:-1}" = 1 ]; then
    if [ -f "/usr/lib/postgresql/$pg_version/lib/pg_stat_statements.so" ]; then
      opts=(-o shared_preload_libraries=pg_stat_statements)
    else
      skip_reason[pgss]="pg_stat_statements is not installed for PostgreSQL $pg_version"
      log "SKIP statements per 1000 jobs: ${skip_reason[pgss]}"
    fi
  else
    skip_reason[pgss]="BENCH_PGSS=0"
  fi
  log "PostgreSQL: creating cluster $pg_version/$own_cluster on 127.0.0.1:$own_port (pg_createcluster, packaged defaults${opts:+, pg_stat_statements preloaded})"
  pg_createcluster -q -p "$own_port" "${opts[@]}" "$pg_version" "$own_cluster" \
      -- --auth-local=trust --auth-host=trust >/dev/null \
    || fail "pg_createcluster failed"
  pg_ctlcluster --skip-systemctl-redirect "$pg_version" "$own_cluster" start || fail "the bench's PostgreSQL did not start"
  export PGHOST=127.0.0.1 PGPORT="$own_port" PGUSER=postgres
  if [ ${#opts[@]} -gt 0 ]; then
    # the Driver reads the view through the postgres database; pg_stat_statements_reset(0, db, 0)
    # before each measured window forgets one database's statements only
    psqlq -d postgres -c 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' && pgss=1 \
      || skip_reason[pgss]="CREATE EXTENSION pg_stat_statements failed"
  fi
}

drop_own_cluster() {
  [ -n "$own_cluster" ] || return 0
  pg_ctlcluster --skip-systemctl-redirect "$pg_version" "$own_cluster" stop -m fast 2>/dev/null || true
  pg_dropcluster "$pg_version" "$own_cluster" || echo "bench/run: could not drop cluster $pg_version/$own_cluster" >&2
}

# the postmaster's pid (CPU accounting and pinning) and check_pg
find_postmaster() {
  if [ -n "${ext_url:-}" ]; then
    # the database is elsewhere: its CPU is not measured (no process of this machine is its
    # postmaster), and nothing checks for its restart
    postmaster=999999999
    check_pg() { :; }
    drop_db() { :; }
    fresh_db() { :; }
    return 0
  fi
  pg_started="$(pgval -d postgres -c 'select pg_postmaster_start_time()')"
  local data_dir
  data_dir="$(pgval -d postgres -c 'show data_directory')"
  postmaster="$(head -1 "$data_dir/postmaster.pid" 2>/dev/null || true)"
  if ! [[ "$postmaster" =~ ^[0-9]+$ ]] || ! kill -0 "$postmaster" 2>/dev/null; then
    postmaster="$(ps -C postgres -o pid=,ppid= | awk '$2 == 1 { print $1; exit }')"
  fi
  [ -n "$postmaster" ] || fail "cannot find the postmaster pid (CPU accounting needs it)"
}

check_pg() { # a restart of the server (by anything else) invalidates timings and CPU accounting
  local now
  now="$(pgval -d postgres -c 'select pg_postmaster_start_time()' 2>/dev/null || echo down)"
  [ "$now" = "$pg_started" ] || fail "PostgreSQL was restarted during the run (started $pg_started, now $now): rerun"
}

# the Driver's options for statements per 1000 jobs in database $1 (nothing without pg_stat_statements)
pgss_opts() {
  [ "$pgss" = 1 ] || return 0
  echo "--pgss-url jdbc:postgresql://$PGHOST:$PGPORT/postgres --pgss-user $PGUSER --pgss-db $1"
}

# pg_stat_statements from the shell (the pgbench ceiling): forget database $1's statements; the
# number of its statements since
pgss_reset() { [ "$pgss" = 1 ] && pgval -d postgres -c "select pg_stat_statements_reset(0, oid, 0) from pg_database where datname = '$1'" >/dev/null || true; }
pgss_calls() {
  [ "$pgss" = 1 ] || { echo n/a; return; }
  pgval -d postgres -c "select coalesce(sum(s.calls), 0) from pg_stat_statements s join pg_database d on d.oid = s.dbid
    where d.datname = '$1' and s.query not like '%pg_stat_statements%'"
}
