# The two modes of a run (sourced by bench/run).
#
#   shared  as before: PostgreSQL, the broker, the load generator and the peers share every core.
#   split   PostgreSQL on CPU $split_pg_cpus (default 0), everything else (broker, HAProxy, the
#           Driver, pgbench, the peers' workers) on $split_app_cpus (default 1) with taskset: the
#           nearest a two-core machine comes to a database on a machine of its own.
#
# set_mode <mode> pins the bench's own PostgreSQL live (the postmaster, then every child of it:
# backends, checkpointer, autovacuum; what the postmaster forks later inherits its CPU list), and
# sets app_prefix, the command prefix for every other process the bench starts from then on
# ("${app_prefix[@]}" cmd ...). It logs the CPU lists of the postmaster and of its children, and
# fails the run when a PostgreSQL process is not where it should be.
#
# Adding a mode: a case in set_mode (where PostgreSQL goes, what app_prefix is), its name in
# BENCH_MODES, and, if it cannot always run, a reason in mode_skip[<mode>] (see check_modes).

all_cpus=""   # the CPUs this run may use (check_modes)
split_pg_cpus="${BENCH_SPLIT_PG_CPUS:-0}"
split_app_cpus="${BENCH_SPLIT_APP_CPUS:-1}"
cur_mode=""
app_prefix=()
declare -A mode_skip=()

# which of $modes can run here; sets mode_skip[mode] and run_modes (the modes that will run)
check_modes() {
  local m
  run_modes=""
  all_cpus="$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' || true)"
  [ -n "$all_cpus" ] || all_cpus="0-$(( $(nproc) - 1 ))"
  for m in $modes; do
    case "$m" in
      split)
        if [ -n "${ext_url:-}" ]; then
          mode_skip[split]="BENCH_DB_URL: the database is not the bench's own, it cannot be pinned"
        elif [ -z "$own_cluster" ]; then
          mode_skip[split]="BENCH_SERVER=1: the server is not the bench's own, it is not pinned"
        elif [ -n "${skip_reason[taskset]:-}" ]; then
          mode_skip[split]="${skip_reason[taskset]}"
        elif [ "$(nproc)" -lt 2 ]; then
          mode_skip[split]="needs two cores, this machine gives the bench $(nproc)"
        fi ;;
      shared) ;;
      *) fail "unknown mode $m in BENCH_MODES (split, shared)" ;;
    esac
    if [ -n "${mode_skip[$m]:-}" ]; then
      log "SKIP mode $m: ${mode_skip[$m]}"
    else
      run_modes="${run_modes:+$run_modes }$m"
    fi
  done
}

pg_pids() { # the postmaster and its children
  echo "$postmaster"
  ps -o pid= --ppid "$postmaster" 2>/dev/null | tr -d ' '
}

pin_pg() { # $1 CPU list
  local p
  [ -n "$own_cluster" ] && command -v taskset >/dev/null || return 0
  taskset -a -pc "$1" "$postmaster" >/dev/null || fail "taskset -pc $1 $postmaster (the postmaster)"
  for p in $(pg_pids); do
    [ "$p" = "$postmaster" ] && continue
    taskset -a -pc "$1" "$p" >/dev/null 2>&1 || true  # a backend may have ended meanwhile
  done
}

# the CPU list of a process as taskset prints it ("0", "0,1", "0-1")
cpus_of() { taskset -pc "$1" 2>/dev/null | sed 's/.*: //'; }

# logs the CPU lists of PostgreSQL's processes (and of the process $1, e.g. a broker); fails when
# one of PostgreSQL's is not $2 (the list it should have)
log_affinity() { # $1 a pid to show beside (or ""), $2 PostgreSQL's expected list (or "")
  [ -n "$own_cluster" ] && command -v taskset >/dev/null || return 0
  local p lists="" bad=0
  for p in $(pg_pids); do
    local c; c="$(cpus_of "$p")"
    [ -n "$c" ] || continue
    lists="$lists $c"
    if [ -n "$2" ] && [ "$c" != "$2" ]; then bad=$((bad + 1)); fi
  done
  log "mode $cur_mode: taskset -p of the postmaster: $(taskset -p "$postmaster" 2>&1); PostgreSQL processes by CPU list:$(tr ' ' '\n' <<<"$lists" | sed '/^$/d' | sort | uniq -c | awk '{ printf " %s x%d", $2, $1 }')$([ -n "$1" ] && echo "; taskset -p of pid $1: $(taskset -p "$1" 2>&1)")"
  [ "$bad" = 0 ] || fail "mode $cur_mode: $bad PostgreSQL processes are not on CPUs $2"
}

set_mode() { # $1 split | shared
  cur_mode="$1"
  case "$1" in
    split)
      pin_pg "$split_pg_cpus"
      app_prefix=(taskset -c "$split_app_cpus")
      log "mode split: PostgreSQL on CPU $split_pg_cpus, the broker, load generator, pgbench and peers on CPU $split_app_cpus"
      log_affinity "" "$(cpus_of "$postmaster")" ;;
    shared)
      pin_pg "$all_cpus"
      app_prefix=()
      log "mode shared: everything on CPUs $all_cpus"
      log_affinity "" "" ;;
  esac
}

# after a process of the bench was started in the current mode: its CPU list, and PostgreSQL's, in the log
log_pinned() { # $1 pid, $2 what it is
  [ "$cur_mode" = split ] || return 0
  local c; c="$(cpus_of "$1")"
  log "mode split: $2 (pid $1) on CPU $c"
  [ "$c" = "$split_app_cpus" ] || fail "mode split: $2 (pid $1) is on CPUs $c, not $split_app_cpus"
  log_affinity "$1" "$(cpus_of "$postmaster")"
}
