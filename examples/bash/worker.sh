#!/usr/bin/env bash
# Readpast example worker: bash + curl + jq.
#
# Claims batches of jobs and works them one by one. It heartbeats each job right before
# starting it (which also tells us early if its lease is already gone), and a background loop
# keeps heartbeating, in one POST /jobs/heartbeat, that job, the rest of its batch and the
# finished jobs waiting for their ack, while the job runs. Failed jobs are failed at once; successes are
# acknowledged with the next claim ("ack": one request completes the batch and leases the
# next). On Ctrl-C / SIGTERM it stops claiming, acknowledges what it finished, gives back
# (releases) every job it still holds, and exits 0.
#
# Configuration (environment):
#   READPAST_URL            broker base URL (default http://localhost:8080)
#   READPAST_API_KEY        sent as "Authorization: Bearer <key>" when set
#   READPAST_QUEUES         comma-separated queue names (default: every queue)
#   READPAST_WORKER_ID      default bash-<pid>
#   READPAST_BATCH          jobs per claim (default 10)
#   READPAST_LEASE_SECONDS  lease length (default 30); heartbeats every third of it
#   READPAST_EXIT_WHEN_IDLE exit 0 after this many whole seconds without jobs (unset: run forever)
#
# Stdout gets one line per job: "completed <id> <type>", "failed <id> <type>",
# "released <id> <type>" or "lost <id> <type>". Diagnostics go to stderr. When the broker refuses
# the key (401) or its role or queues (403), it prints the broker's reason and exits 1.
set -uo pipefail # no -e: every failure is checked and handled explicitly

URL=${READPAST_URL:-http://localhost:8080}
URL=${URL%/}
WORKER_ID=${READPAST_WORKER_ID:-bash-$$}
BATCH=${READPAST_BATCH:-10}
LEASE_SECONDS=${READPAST_LEASE_SECONDS:-30}
EXIT_WHEN_IDLE=${READPAST_EXIT_WHEN_IDLE:-}
# "a, b" -> ["a","b"]; empty -> null (claim from every queue)
QUEUES_JSON=$(jq -cn --arg q "${READPAST_QUEUES:-}" \
  '[$q | split(",")[] | gsub("^\\s+|\\s+$"; "") | select(length > 0)] | if length == 0 then null else . end')

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The API key goes in a header file (mode 600) rather than on curl's command line, where any
# user could read it with ps.
: >"$WORK/headers"
chmod 600 "$WORK/headers"
if [[ -n ${READPAST_API_KEY:-} ]]; then
  printf 'Authorization: Bearer %s\n' "$READPAST_API_KEY" >"$WORK/headers"
fi

STOP=0
trap 'echo "[$WORKER_ID] got a signal: finishing up" >&2; STOP=1' INT TERM

log() { printf '%s\n' "$*"; }
warn() { printf '[%s] %s\n' "$WORKER_ID" "$*" >&2; }

# Runs a command in the background and waits for it. Bash runs trap handlers as soon as a
# signal interrupts `wait`, and a background command of a non-interactive shell ignores Ctrl-C,
# so a Ctrl-C neither kills a request half-way nor has to wait for a long `sleep` to end.
# Returns the command's status, or 255 if the wait was cut short by a signal (STOP is then 1).
in_background() {
  "$@" &
  local pid=$!
  wait "$pid"
  local rc=$?
  if kill -0 "$pid" 2>/dev/null; then # still running: our wait was interrupted
    if [[ $1 == sleep ]]; then
      kill "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      return 255
    fi
    wait "$pid" # a request: let it finish
    rc=$?
  fi
  return "$rc"
}

# api METHOD PATH [JSON-BODY]: sets STATUS (HTTP status, 000 when unreachable) and BODY.
api() {
  local f=$WORK/$BASHPID # per process: the heartbeat loop below calls this too
  local args=(-sS -X "$1" -H 'Accept: application/json' -H "@$WORK/headers" --max-time 30
    -o "$f.body" -w '%{http_code}')
  if [[ $# -ge 3 ]]; then
    printf '%s' "$3" >"$f.request"
    args+=(-H 'Content-Type: application/json' --data-binary "@$f.request")
  fi
  : >"$f.body"
  in_background curl "${args[@]}" "$URL$2" >"$f.status" || echo 000 >"$f.status"
  STATUS=$(<"$f.status")
  BODY=$(<"$f.body")
}

# The problem+json detail of the last answer, or its raw text.
problem() { jq -r '.detail // .title // empty' <<<"$BODY" 2>/dev/null || printf '%s' "$BODY"; }

# finish JOB ACTION WORD [EXTRA-JSON]: POST /jobs/{id}/ACTION with the lease id and EXTRA's
# fields, then log "WORD <id> <type>" (or "lost <id> <type>" on 409).
finish() {
  local job=$1 action=$2 word=$3 extra=${4:-'{}'}
  local id type body
  id=$(jq -r .id <<<"$job")
  type=$(jq -r .type <<<"$job")
  body=$(jq -c --argjson extra "$extra" '{leaseId} + $extra' <<<"$job")
  api POST "/jobs/$id/$action" "$body"
  case $STATUS in
    2??) log "$word $id $type" ;;
    409) log "lost $id $type" ;;
    *) warn "$action $id failed: HTTP $STATUS $(problem)" ;;
  esac
}

# release_all JOB...: gives the jobs back unworked (no attempt spent) in one POST /jobs/release
# (the broker answers each item on its own), logging "released <id> <type>" or "lost <id> <type>".
release_all() {
  local answers k
  api POST /jobs/release "$(jq -cn '{items: [$ARGS.positional[] | {id, leaseId}]}' --jsonargs "$@")"
  if [[ $STATUS != 200 ]]; then
    warn "release of $# jobs failed: HTTP $STATUS $(problem)"
    return
  fi
  mapfile -t answers < <(jq -r '.results[].status' <<<"$BODY")
  for ((k = 1; k <= $#; k++)); do
    case ${answers[k - 1]} in
      200) log "released $(jq -r '"\(.id) \(.type)"' <<<"${!k}")" ;;
      404 | 409) log "lost $(jq -r '"\(.id) \(.type)"' <<<"${!k}")" ;;
      *) warn "release $(jq -r .id <<<"${!k}") failed: $(jq -c ".results[$((k - 1))].error" <<<"$BODY")" ;;
    esac
  done
}

# Finished jobs waiting for their acknowledgement: {id, leaseId, result} each, and "id type".
ACKS=()
ACKED=()

# ack JOB RESULT-JSON: remembers the job for the next claim's "ack" list.
ack() {
  ACKS+=("$(jq -c --argjson r "$2" '{id, leaseId, result: $r}' <<<"$1")")
  ACKED+=("$(jq -r '"\(.id) \(.type)"' <<<"$1")")
}

# acknowledged ANSWERS-JSON: logs the broker's answer (an array, in ack order) for each ack sent.
acknowledged() {
  local i status
  for ((i = 0; i < ${#ACKED[@]}; i++)); do
    status=$(jq -r --argjson i "$i" '.[$i].status // "none"' <<<"$1")
    case $status in
      200) log "completed ${ACKED[i]}" ;;
      404 | 409) log "lost ${ACKED[i]}" ;;
      *) warn "complete ${ACKED[i]} failed: $(jq -c --argjson i "$i" '.[$i].error' <<<"$1")" ;;
    esac
  done
  ACKS=()
  ACKED=()
}

# handle JOB: does the work. Prints the result JSON and returns 0, or prints an error message
# and returns 1 (retryable) / 2 (not retryable), or returns 255 when interrupted by shutdown.
# (It runs in this shell, not in a $(...) subshell, so that the INT/TERM trap reaches it.)
# TRACEPARENT and TRACESTATE hold the W3C trace context the producer sent with the job (empty
# when it sent none), for a traced command to continue the producer's trace.
handle() {
  local job=$1
  TRACEPARENT=$(jq -r '.traceparent // empty' <<<"$job") TRACESTATE=$(jq -r '.tracestate // empty' <<<"$job")
  export TRACEPARENT TRACESTATE
  case $(jq -r .type <<<"$job") in
    echo) jq -c '{echo: .payload}' <<<"$job" ;;
    fail) echo "this job asked to fail"; return 2 ;;
    sleep)
      local seconds
      seconds=$(jq -r '(.payload | objects | .seconds) // 1' <<<"$job")
      in_background sleep "$seconds" || return $?
      jq -cn --argjson s "$seconds" '{slept: $s}' ;;
    *) echo '{"ok":true}' ;;
  esac
}

# heartbeat_loop ID BODY: runs in the background while job ID is worked, extending every lease
# of BODY (a POST /jobs/heartbeat body whose first item is job ID) every leaseSeconds/3 until
# killed. (A lost lease of another job shows up as a 409 from its own heartbeat or report.)
heartbeat_loop() {
  local id=$1 body=$2 every=$((LEASE_SECONDS / 3 > 0 ? LEASE_SECONDS / 3 : 1)) nap first
  trap 'kill "$nap" 2>/dev/null; exit 0' TERM
  while :; do
    sleep "$every" &
    nap=$!
    wait "$nap"
    api POST /jobs/heartbeat "$body"
    if [[ $STATUS != 200 ]]; then
      warn "heartbeat failed: HTTP $STATUS $(problem)"
      continue
    fi
    first=$(jq -r '.results[0].status' <<<"$BODY")
    case $first in
      200) ;;
      404 | 409) warn "lease lost for job $id"; exit 0 ;;
      *) warn "heartbeat $id failed: $(jq -c '.results[0].error' <<<"$BODY")" ;;
    esac
  done
}

# process JOB [LATER-JOB...]: heartbeat (extends the lease, and tells us if it is gone), run,
# then report; while it runs, the later jobs of its batch and the finished ones waiting for
# their ack are heartbeated with it.
process() {
  local job=$1 id beat out rc hb all
  id=$(jq -r .id <<<"$job")
  beat=$(jq -c --argjson s "$LEASE_SECONDS" '{leaseId, leaseSeconds: $s}' <<<"$job")
  api POST "/jobs/$id/heartbeat" "$beat"
  if [[ $STATUS == 409 ]]; then
    log "lost $id $(jq -r .type <<<"$job")"
    return
  fi
  all=$(jq -cn --argjson s "$LEASE_SECONDS" '{items: [$ARGS.positional[] | {id, leaseId, leaseSeconds: $s}]}' \
    --jsonargs "$@" ${ACKS[@]+"${ACKS[@]}"})
  heartbeat_loop "$id" "$all" &
  hb=$!
  handle "$job" >"$WORK/out"
  rc=$?
  kill "$hb" 2>/dev/null
  wait "$hb" 2>/dev/null
  out=$(<"$WORK/out")
  # Interrupted by shutdown (or broken by the Ctrl-C that started it): give it back unworked.
  if [[ $rc == 255 || ( $rc != 0 && $STOP == 1 ) ]]; then
    finish "$job" release released
  elif [[ $rc == 0 ]]; then
    ack "$job" "$out"
  else
    finish "$job" fail failed "$(jq -cn --arg e "$out" --argjson r "$([[ $rc == 2 ]] && echo false || echo true)" \
      '{error: $e, retryable: $r}')"
  fi
}

warn "worker $WORKER_ID polling $URL queues=${READPAST_QUEUES:-all}"
CLAIM=$(jq -cn --arg w "$WORKER_ID" --argjson n "$BATCH" --argjson l "$LEASE_SECONDS" --argjson q "$QUEUES_JSON" \
  '{workerId: $w, limit: $n, leaseSeconds: $l} + (if $q then {queues: $q} else {} end)')
last_job=$SECONDS
idle_ms=500
declare -A unknown_warned # queue names the broker said do not exist, already reported
while [[ $STOP == 0 ]]; do
  api POST /claim "$(jq -c '. + (if $ARGS.positional == [] then {} else {ack: $ARGS.positional} end)' \
    --jsonargs <<<"$CLAIM" ${ACKS[@]+"${ACKS[@]}"})"
  jobs=()
  if [[ $STATUS == 200 ]]; then
    [[ ${#ACKS[@]} == 0 ]] || acknowledged "$(jq -c '.acks' <<<"$BODY")"
    mapfile -t jobs < <(jq -c '.jobs[]' <<<"$BODY")
    while read -r queue; do # listed only in empty answers
      [[ -z $queue || -n ${unknown_warned[$queue]:-} ]] && continue
      unknown_warned[$queue]=1
      warn "queue '$queue' does not exist on the broker (nothing was ever enqueued there): check READPAST_QUEUES"
    done < <(jq -r '.unknownQueues // [] | .[]' <<<"$BODY")
  elif [[ $STATUS == 401 || $STATUS == 403 ]]; then
    # retrying cannot help: the key is wrong or lacks the worker role
    warn "the broker refused this worker: HTTP $STATUS: $(problem) (set READPAST_API_KEY to a key with the worker role)"
    exit 1
  else
    warn "claim failed: HTTP $STATUS $(problem)"
  fi

  if [[ ${#jobs[@]} == 0 ]]; then
    if [[ -n $EXIT_WHEN_IDLE ]] && (( SECONDS - last_job >= EXIT_WHEN_IDLE )); then
      warn "idle for ${EXIT_WHEN_IDLE}s: exiting"
      break
    fi
    in_background sleep "$((idle_ms / 1000)).$(printf %03d $((idle_ms % 1000)))" # back off: 0.5 s up to 2 s
    idle_ms=$((idle_ms * 3 / 2 > 2000 ? 2000 : idle_ms * 3 / 2))
    continue
  fi
  idle_ms=500

  for ((i = 0; i < ${#jobs[@]}; i++)); do
    if [[ $STOP == 1 ]]; then
      # Shutdown: give back the rest of the batch without spending an attempt.
      release_all "${jobs[@]:i}"
      break
    fi
    process "${jobs[@]:i}"
  done
  last_job=$SECONDS
done
# Acknowledge what is done before leaving.
if [[ ${#ACKS[@]} -gt 0 ]]; then
  api POST /jobs/complete "$(jq -cn '{items: $ARGS.positional}' --jsonargs "${ACKS[@]}")"
  if [[ $STATUS == 200 ]]; then
    acknowledged "$(jq -c '.results' <<<"$BODY")"
  else
    warn "complete failed: HTTP $STATUS $(problem)"
  fi
fi
exit 0
