#!/usr/bin/env bash
# A PostgreSQL HA rig on loopback, from Debian's packages: a pg_auto_failover monitor and three
# data nodes (or two: HA_NODES=2) with synchronous replication, and HAProxy in front of broker
# instances. The monitor's and keepers' timeouts are set for failover in seconds on a reliable
# network: docs/high-availability.md says what each costs.
#
#   scripts/ha-postgres.sh start            monitor + node1 (primary) + node2, node3 (secondaries)
#   scripts/ha-postgres.sh healthy          exit 0 when one primary and every other node secondary
#   scripts/ha-postgres.sh switchover       a planned switchover (pg_autoctl perform switchover)
#   scripts/ha-postgres.sh lb PORT...       HAProxy on $HA_LB_PORT in front of brokers on PORT...
#   scripts/ha-postgres.sh url              the brokers' JDBC URL (multi-host, primary only)
#   scripts/ha-postgres.sh state            pg_auto_failover's view of the nodes
#   scripts/ha-postgres.sh primary          the current primary: name port pgdata
#   scripts/ha-postgres.sh kill NODE        kill -9 NODE's keeper and postmaster (a crashed machine)
#   scripts/ha-postgres.sh revive NODE      start NODE's keeper again: it rejoins as a standby
#   scripts/ha-postgres.sh stop             stop everything and delete $HA_DIR
#
# Needs: postgresql-15-auto-failover, pg-auto-failover-cli, haproxy (apt). pg_autoctl refuses
# to run as root, so as root the PostgreSQL parts run as the postgres user.
set -euo pipefail

HA_DIR=${HA_DIR:-/tmp/readpast-ha}
MONITOR_PORT=${HA_MONITOR_PORT:-6500}
NODE1_PORT=${HA_NODE1_PORT:-6501}
NODE2_PORT=${HA_NODE2_PORT:-6502}
NODE3_PORT=${HA_NODE3_PORT:-6503}
HA_NODES=${HA_NODES:-3}
case "$HA_NODES" in 2) NODES="node1 node2" ;; 3) NODES="node1 node2 node3" ;; *) echo "ha-postgres: HA_NODES is 2 or 3" >&2; exit 2 ;; esac
HA_LB_PORT=${HA_LB_PORT:-6580}
DB=${HA_DB:-readpast}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
export PATH="$PGBIN:$PATH"

die() { echo "ha-postgres: $*" >&2; exit 1; }

# pg_autoctl keeps its state under XDG_CONFIG_HOME and XDG_DATA_HOME: here, inside $HA_DIR
as_pg() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- env PATH="$PGBIN:/usr/local/bin:/usr/bin:/bin" XDG_CONFIG_HOME="$HA_DIR/xdg/config" XDG_DATA_HOME="$HA_DIR/xdg/data" \
            XDG_RUNTIME_DIR="$HA_DIR/xdg/run" "$@"
    else
        env XDG_CONFIG_HOME="$HA_DIR/xdg/config" XDG_DATA_HOME="$HA_DIR/xdg/data" XDG_RUNTIME_DIR="$HA_DIR/xdg/run" "$@"
    fi
}

port_of() { case "$1" in monitor) echo "$MONITOR_PORT" ;; node1) echo "$NODE1_PORT" ;; node2) echo "$NODE2_PORT" ;; node3) echo "$NODE3_PORT" ;; *) die "no node $1" ;; esac; }

monitor_uri() { echo "postgres://autoctl_node@127.0.0.1:$MONITOR_PORT/pg_auto_failover?sslmode=disable"; }

# Runs a node's keeper in the background; its log is $HA_DIR/NAME.log.
run_keeper() {
    local name=$1
    touch "$HA_DIR/$name.log" "$HA_DIR/$name.keeper.pid"
    [ "$(id -u)" = 0 ] && chown postgres: "$HA_DIR/$name.log" "$HA_DIR/$name.keeper.pid"
    # a session of its own, so that it outlives this script (and runuser's session)
    as_pg bash -c "cd /tmp; setsid nohup pg_autoctl run --pgdata '$HA_DIR/$name' >> '$HA_DIR/$name.log' 2>&1 < /dev/null &
        echo \$! > '$HA_DIR/$name.keeper.pid'"
}

wait_for() {
    local what=$1 seconds=$2 cmd=$3
    for _ in $(seq 1 $((seconds * 2))); do
        if eval "$cmd" >/dev/null 2>&1; then return 0; fi
        sleep 0.5
    done
    echo "ha-postgres: timed out waiting for $what" >&2
    for f in "$HA_DIR"/*.log; do echo "--- $f"; tail -20 "$f"; done >&2
    return 1
}

node_state() {  # NAME -> its current state (primary, secondary, ...), as the monitor says
    as_pg psql -At -h 127.0.0.1 -p "$MONITOR_PORT" -U autoctl_node -d pg_auto_failover \
        -c "SELECT reportedstate FROM pgautofailover.node WHERE nodename = '$1'" 2>/dev/null
}

start() {
    command -v pg_autoctl >/dev/null || die "pg_autoctl is missing: apt-get install postgresql-15-auto-failover pg-auto-failover-cli"
    [ -e "$HA_DIR/monitor" ] && die "$HA_DIR exists: run '$0 stop' first"
    mkdir -p "$HA_DIR/xdg/config" "$HA_DIR/xdg/data" "$HA_DIR/xdg/run"
    chmod 700 "$HA_DIR/xdg/run"
    [ "$(id -u)" = 0 ] && chown -R postgres: "$HA_DIR"
    as_pg pg_autoctl create monitor --pgctl "$PGBIN/pg_ctl" --pgdata "$HA_DIR/monitor" --pgport "$MONITOR_PORT" --hostname 127.0.0.1 \
        --listen 127.0.0.1 --auth trust --no-ssl >> "$HA_DIR/monitor.log" 2>&1
    run_keeper monitor
    wait_for "the monitor" 60 "as_pg psql -At -h 127.0.0.1 -p $MONITOR_PORT -U autoctl_node -d pg_auto_failover -c 'SELECT 1'"
    tune_monitor
    for name in $NODES; do
        as_pg pg_autoctl create postgres --pgctl "$PGBIN/pg_ctl" --pgdata "$HA_DIR/$name" --pgport "$(port_of $name)" --hostname 127.0.0.1 \
            --listen 127.0.0.1 --name "$name" --dbname "$DB" --auth trust --no-ssl --monitor "$(monitor_uri)" \
            >> "$HA_DIR/$name.log" 2>&1
        tune_keeper "$name"
        run_keeper "$name"
        if [ "$name" = node1 ]; then
            wait_for "node1 to be primary" 90 "[ \"\$(node_state node1)\" = single ] || [ \"\$(node_state node1)\" = primary ]"
        else
            wait_for "$name to be a secondary" 120 "[ \"\$(node_state $name)\" = secondary ]"
        fi
    done
    # Synchronous replication. With three data nodes the formation takes number_sync_standbys 1:
    # every commit waits for one of the two standbys, and with one standby down the primary still
    # has one to wait for, so an acknowledged commit is on two nodes at every moment. With two
    # data nodes pg_auto_failover takes number_sync_standbys 0 (1 needs two standbys) and, while
    # the standby is healthy, sets synchronous_standby_names to 'ANY 1 (standby)'; when the
    # standby fails, the primary goes wait_primary and commits alone until it is back: a failover
    # in that window loses what was committed alone (docs/high-availability.md).
    if [ "$HA_NODES" = 3 ]; then
        as_pg pg_autoctl set formation number-sync-standbys 1 --pgdata "$HA_DIR/node1" >> "$HA_DIR/node1.log" 2>&1
    fi
    wait_for "node1 to be primary" 60 "[ \"\$(node_state node1)\" = primary ]"
    wait_for "every node healthy" 60 "healthy"
    local sync
    sync=$(as_pg psql -At -h 127.0.0.1 -p "$NODE1_PORT" -d "$DB" -c "SHOW synchronous_standby_names")
    [ -n "$sync" ] || die "synchronous replication is off on node1"
    echo "ha-postgres: synchronous_standby_names = $sync"
    echo "ha-postgres: monitor 127.0.0.1:$MONITOR_PORT, data nodes $(for n in $NODES; do printf '%s 127.0.0.1:%s ' "$n" "$(port_of "$n")"; done)(node1 primary)"
    echo "ha-postgres: READPAST_DB_URL=$(url)"
}

# The monitor decides failovers. Its defaults (a health check every 20 s, a node unhealthy after
# 20 s, 30 s for a primary to demote itself) give 40-60 s of outage; these give a few seconds on
# a reliable network, where a check that fails twice in 1.5 s means a dead node.
tune_monitor() {
    as_pg psql -q -h 127.0.0.1 -p "$MONITOR_PORT" -U postgres -d pg_auto_failover \
        -c "ALTER SYSTEM SET pgautofailover.health_check_period = 1000" \
        -c "ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000" \
        -c "ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1" \
        -c "ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500" \
        -c "ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 1500" \
        -c "ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 1000" \
        -c "SELECT pg_reload_conf()" >> "$HA_DIR/monitor.log" 2>&1
}

# A keeper that loses the monitor and every standby for network_partition_timeout demotes its
# primary itself (default 20 s): short, so that a primary cut off from the others stops taking
# writes before the monitor promotes another; a standby waits prepare_promotion_walreceiver for
# its WAL receiver to stop before it is promoted (default 5 s).
tune_keeper() {
    local name=$1
    as_pg pg_autoctl config set --pgdata "$HA_DIR/$name" timeout.network_partition_timeout 2 >> "$HA_DIR/$name.log" 2>&1
    as_pg pg_autoctl config set --pgdata "$HA_DIR/$name" timeout.prepare_promotion_walreceiver 1 >> "$HA_DIR/$name.log" 2>&1
}

url() {
    # targetServerType=primary: connect only to the node that accepts writes, trying each host;
    # short connect and login timeouts so that a dead host costs seconds, not minutes;
    # hostRecheckSeconds=0: a host found to be a standby (or down) is tried again at the next
    # connection (the default, 10 s, would hide a promoted standby that long).
    local hosts=""
    for n in $NODES; do hosts="$hosts${hosts:+,}127.0.0.1:$(port_of "$n")"; done
    echo "jdbc:postgresql://$hosts/$DB?targetServerType=primary&hostRecheckSeconds=0&connectTimeout=2&loginTimeout=5&socketTimeout=30&tcpKeepAlive=true"
}

# One primary, every other data node secondary, and the monitor's goal reached for each.
healthy() {
    local bad
    bad=$(as_pg psql -At -h 127.0.0.1 -p "$MONITOR_PORT" -U autoctl_node -d pg_auto_failover \
        -c "SELECT count(*) FILTER (WHERE reportedstate <> goalstate OR reportedstate NOT IN ('primary', 'secondary'))
                   + abs(count(*) FILTER (WHERE reportedstate = 'primary') - 1)
                   + abs(count(*) - $HA_NODES)
            FROM pgautofailover.node WHERE formationid = 'default'")
    [ "$bad" = 0 ]
}

switchover() {
    as_pg pg_autoctl perform switchover --pgdata "$HA_DIR/node1" --wait 60
}

lb() {
    [ $# -ge 1 ] || die "lb needs the brokers' ports"
    command -v haproxy >/dev/null || die "haproxy is missing: apt-get install haproxy"
    mkdir -p "$HA_DIR"
    {
        echo "global"
        echo "    maxconn 4096"
        echo "    pidfile $HA_DIR/haproxy.pid"
        echo "defaults"
        echo "    mode http"
        echo "    timeout connect 2s"
        echo "    timeout client 60s"
        echo "    timeout server 60s"
        echo "    retries 3"
        echo "    option redispatch"
        # a request the broker never received (it died) goes to another; one it answered is not sent twice
        echo "    retry-on conn-failure empty-response"
        echo "frontend readpast"
        echo "    bind 127.0.0.1:$HA_LB_PORT"
        echo "    default_backend brokers"
        echo "backend brokers"
        echo "    balance roundrobin"
        # liveness, not readiness: while no primary accepts writes every broker answers 503 with
        # Retry-After itself, which HAProxy would replace by its own 503 without one
        echo "    option httpchk GET /q/health/live"
        echo "    default-server inter 500ms fall 2 rise 2"
        local i=0
        for p in "$@"; do
            i=$((i + 1))
            echo "    server broker$i 127.0.0.1:$p check"
        done
    } > "$HA_DIR/haproxy.cfg"
    haproxy -c -q -f "$HA_DIR/haproxy.cfg"
    if [ -f "$HA_DIR/haproxy.pid" ] && kill -0 "$(cat "$HA_DIR/haproxy.pid")" 2>/dev/null; then
        haproxy -D -f "$HA_DIR/haproxy.cfg" -sf "$(cat "$HA_DIR/haproxy.pid")"
    else
        haproxy -D -f "$HA_DIR/haproxy.cfg"
    fi
    echo "ha-postgres: HAProxy on 127.0.0.1:$HA_LB_PORT in front of $*"
}

state() { as_pg pg_autoctl show state --pgdata "$HA_DIR/monitor"; }

primary() {
    local name
    name=$(as_pg psql -At -h 127.0.0.1 -p "$MONITOR_PORT" -U autoctl_node -d pg_auto_failover \
        -c "SELECT nodename FROM pgautofailover.node WHERE reportedstate IN ('primary', 'single', 'wait_primary') \
            AND goalstate IN ('primary', 'single', 'wait_primary') ORDER BY nodeid LIMIT 1")
    [ -n "$name" ] || die "no primary now"
    echo "$name $(port_of "$name") $HA_DIR/$name"
}

kill_node() {
    local name=$1
    port_of "$name" >/dev/null
    # the keeper runs in a session of its own (setsid): kill the whole session at once, keeper,
    # its supervisor and the postmaster it started, so that nothing is left to restart the
    # postmaster (a surviving "start/stop postgres" service restarts it within milliseconds, and
    # clients then connect to an old primary that the monitor has already replaced)
    if [ -f "$HA_DIR/$name.keeper.pid" ]; then
        pkill -9 -s "$(cat "$HA_DIR/$name.keeper.pid")" 2>/dev/null || true
        kill -9 "$(cat "$HA_DIR/$name.keeper.pid")" 2>/dev/null || true
    fi
    # the keeper's children, should any have left the session, then the postmaster
    pkill -9 -f "pg_autoctl.*--pgdata $HA_DIR/$name( |$)" 2>/dev/null || true
    pkill -9 -f "pg_autoctl: .*$HA_DIR/$name" 2>/dev/null || true
    if [ -f "$HA_DIR/$name/postmaster.pid" ]; then
        kill -9 "$(head -1 "$HA_DIR/$name/postmaster.pid")" 2>/dev/null || true
    fi
    echo "ha-postgres: $name killed"
}

revive() {
    local name=$1
    port_of "$name" >/dev/null
    run_keeper "$name"
    echo "ha-postgres: $name's keeper started again"
}

stop() {
    if [ -f "$HA_DIR/haproxy.pid" ]; then kill "$(cat "$HA_DIR/haproxy.pid")" 2>/dev/null || true; fi
    for name in node3 node2 node1 monitor; do
        if [ -d "$HA_DIR/$name" ]; then
            as_pg pg_autoctl stop --pgdata "$HA_DIR/$name" --immediate >/dev/null 2>&1 || true
            [ -f "$HA_DIR/$name.keeper.pid" ] && kill -9 "$(cat "$HA_DIR/$name.keeper.pid")" 2>/dev/null || true
            if [ -f "$HA_DIR/$name/postmaster.pid" ]; then
                kill -9 "$(head -1 "$HA_DIR/$name/postmaster.pid")" 2>/dev/null || true
            fi
        fi
    done
    pkill -9 -f "pg_autoctl.*$HA_DIR" 2>/dev/null || true
    # the keepers' services are named "pg_autoctl: ..." without a path: find them by their environment
    for pid in $(pgrep -f "^pg_autoctl" 2>/dev/null); do
        if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "XDG_CONFIG_HOME=$HA_DIR/xdg/config"; then
            kill -9 "$pid" 2>/dev/null || true
        fi
    done
    pkill -9 -f "postgres -D $HA_DIR" 2>/dev/null || true
    rm -rf "$HA_DIR"
    echo "ha-postgres: stopped"
}

cmd=${1:-}
shift || true
case "$cmd" in
    start) start ;;
    lb) lb "$@" ;;
    url) url ;;
    state) state ;;
    healthy) healthy ;;
    switchover) switchover ;;
    primary) primary ;;
    kill) kill_node "${1:?node}" ;;
    revive) revive "${1:?node}" ;;
    stop) stop ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
esac
