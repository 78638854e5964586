#!/usr/bin/env bash
# End-to-end check of the example workers against a running broker (this script does not start one).
#
#   READPAST_URL=http://localhost:8080 examples/run-e2e.sh [lang...]     # default: python node bash java
#
# For each language it enqueues 5 "echo" jobs on a fresh queue, runs that worker until it has been
# idle for 3 s (90 s at most), and checks that every job SUCCEEDED with result.echo equal to its
# payload. For python it also checks Ctrl-C: a 30 s "sleep" job must go back to PENDING with
# attempt 0 when the worker gets SIGINT mid-job. For every language it also checks that a worker
# told that its queue does not exist says so, and, when the broker requires API keys, that a worker
# with a wrong key exits with status 1 and the broker's reason.
#
# Environment: READPAST_URL (required), READPAST_API_KEY (passed on to the workers; required when the
# broker requires keys, as it does by default),
# JAVA (java launcher for Worker.java, default `java`), E2E_LOG_DIR (where worker output goes;
# default a fresh temporary directory).
# Needs curl and jq. Prints "PASS <lang>" or "FAIL <lang>: reason" per test, then "N passed, M failed".
set -euo pipefail

: "${READPAST_URL:?set READPAST_URL to the base URL of a running broker, e.g. http://localhost:8080}"
export READPAST_URL=${READPAST_URL%/}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JAVA=${JAVA:-java}
LOG_DIR=${E2E_LOG_DIR:-$(mktemp -d -t readpast-e2e.XXXXXX)}
mkdir -p "$LOG_DIR"
LANGS=("$@")
[[ ${#LANGS[@]} -gt 0 ]] || LANGS=(python node bash java)

for tool in curl jq; do
  command -v "$tool" >/dev/null || { echo "run-e2e.sh needs $tool" >&2; exit 2; }
done

# api METHOD PATH [JSON-BODY]: prints the answer; fails (printing "HTTP <status>: <body>") on non-2xx.
# A 503 (database briefly unavailable) is retried up to 5 times, a second apart.
api() {
  local args=(-sS -X "$1" --max-time 15 -H 'Accept: application/json' -w '\n%{http_code}')
  [[ -z ${READPAST_API_KEY:-} ]] || args+=(-H "Authorization: Bearer $READPAST_API_KEY")
  [[ $# -lt 3 ]] || args+=(-H 'Content-Type: application/json' --data-binary "$3")
  local out status try
  for try in 1 2 3 4 5; do
    out=$(curl "${args[@]}" "$READPAST_URL$2" 2>&1) || { echo "curl $1 $2 failed: $out"; return 1; }
    status=${out##*$'\n'}
    out=${out%$'\n'*}
    [[ $status == 503 && $try -lt 5 ]] || break
    sleep 1
  done
  if [[ $status != 2?? ]]; then
    echo "HTTP $status from $1 $2: $out"
    return 1
  fi
  printf '%s\n' "$out"
}

# Sets CMD to the command line that runs the worker for language $1.
worker_cmd() {
  case $1 in
    python) CMD=(python3 "$HERE/python/worker.py") ;;
    node) CMD=(node "$HERE/node/worker.mjs") ;;
    bash) CMD=(bash "$HERE/bash/worker.sh") ;;
    java) CMD=("$JAVA" "$HERE/java/Worker.java") ;;
    *) echo "unknown language '$1'"; return 1 ;;
  esac
  command -v "${CMD[0]}" >/dev/null || { echo "${CMD[0]} is not installed"; return 1; }
}

# Each test runs in a subshell and prints the reason before failing; `fail` ends that subshell.
fail() {
  echo "$*"
  exit 1
}

# enqueue QUEUE TYPE PAYLOAD-JSON: prints the new job's id.
enqueue() {
  local body resp
  body=$(jq -cn --arg q "$1" --arg t "$2" --argjson p "$3" '{queue: $q, type: $t, payload: $p}') || return 1
  resp=$(api POST /jobs "$body") || { echo "enqueue failed: $resp"; return 1; }
  jq -er .id <<<"$resp"
}

# wait_for_status ID SECONDS STATUS...: polls GET /jobs/ID until its status is one of STATUS.
# Prints the job (or the last error) either way; fails if the time ran out.
wait_for_status() {
  local id=$1 seconds=$2 job status deadline
  shift 2
  deadline=$((SECONDS + seconds))
  while :; do
    if job=$(api GET "/jobs/$id"); then
      status=$(jq -r .status <<<"$job")
      for want in "$@"; do
        [[ $status != "$want" ]] || { printf '%s\n' "$job"; return 0; }
      done
    fi
    if ((SECONDS >= deadline)); then
      printf '%s\n' "$job"
      return 1
    fi
    sleep 0.3
  done
}

# test_echo LANG: 5 echo jobs through the LANG worker.
test_echo() (
  lang=$1
  worker_cmd "$lang" || exit 1
  queue="e2e-$lang-$(date +%s)-$RANDOM"
  ids=()
  payloads=()
  for n in 1 2 3 4 5; do
    payload=$(jq -cn --arg lang "$lang" --argjson n "$n" \
      '{n: $n, lang: $lang, text: "tab\there \"quoted\" ünïcødé ✓", list: [1, -2.5, true, null, {}, []], nested: {deep: {x: $n}}}')
    id=$(enqueue "$queue" echo "$payload") || fail "$id"
    ids+=("$id")
    payloads+=("$payload")
  done

  out="$LOG_DIR/$lang.out"
  err="$LOG_DIR/$lang.err"
  rc=0
  READPAST_QUEUES=$queue READPAST_EXIT_WHEN_IDLE=3 timeout 90 "${CMD[@]}" >"$out" 2>"$err" || rc=$?
  [[ $rc != 124 ]] || fail "worker still running after 90 s (log: $err)"
  [[ $rc == 0 ]] || fail "worker exited with status $rc: $(tail -n 3 "$err" | tr '\n' ' ')"

  for i in "${!ids[@]}"; do
    id=${ids[i]}
    job=$(api GET "/jobs/$id") || fail "$job"
    status=$(jq -r .status <<<"$job")
    [[ $status == SUCCEEDED ]] || fail "job $id is $status, not SUCCEEDED (lastError: $(jq -r .lastError <<<"$job"))"
    jq -e --argjson p "${payloads[i]}" '.result.echo == $p' <<<"$job" >/dev/null \
      || fail "job $id: result $(jq -c .result <<<"$job") does not echo payload ${payloads[i]}"
    grep -qx "completed $id echo" "$out" || fail "worker did not log 'completed $id echo' (log: $out)"
  done
)

# test_release LANG: SIGINT in the middle of a job gives it back unworked.
test_release() (
  lang=$1
  worker_cmd "$lang" || exit 1
  queue="e2e-$lang-release-$(date +%s)-$RANDOM"
  id=$(enqueue "$queue" sleep '{"seconds": 30}') || fail "$id"

  out="$LOG_DIR/$lang-release.out"
  err="$LOG_DIR/$lang-release.err"
  READPAST_QUEUES=$queue "${CMD[@]}" >"$out" 2>"$err" &
  pid=$!
  trap 'kill -KILL "$pid" 2>/dev/null || true' EXIT # however this test ends, the worker does not outlive it
  job=$(wait_for_status "$id" 30 LEASED PROCESSING) \
    || fail "job $id never got leased: $(jq -r .status <<<"$job" 2>/dev/null || echo "$job")"
  sleep 1 # let the handler get going

  kill -INT "$pid"
  for _ in $(seq 1 100); do # up to 20 s to shut down
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  ! kill -0 "$pid" 2>/dev/null || fail "worker still running 20 s after SIGINT (log: $err)"
  rc=0
  wait "$pid" || rc=$?
  [[ $rc == 0 ]] || fail "worker exited with status $rc after SIGINT: $(tail -n 3 "$err" | tr '\n' ' ')"

  job=$(wait_for_status "$id" 5 PENDING) || fail "job $id is $(jq -r .status <<<"$job" 2>/dev/null || echo "$job"), not PENDING"
  attempt=$(jq -r .attempt <<<"$job")
  [[ $attempt == 0 ]] || fail "job $id has attempt $attempt after release, not 0"
  grep -qx "released $id sleep" "$out" || fail "worker did not log 'released $id sleep' (log: $out)"
)

# test_told LANG: the worker reports what the broker tells it. A queue that does not exist is named
# on stderr (and the worker goes on); a wrong API key ends it with status 1 and the broker's reason
# (checked only when the broker requires keys: AUTH_ON=1).
test_told() (
  lang=$1
  worker_cmd "$lang" || exit 1
  queue="e2e-$lang-missing-$(date +%s)-$RANDOM"
  err="$LOG_DIR/$lang-unknown.err"
  rc=0
  READPAST_QUEUES=$queue READPAST_EXIT_WHEN_IDLE=2 timeout 60 "${CMD[@]}" >/dev/null 2>"$err" || rc=$?
  [[ $rc == 0 ]] || fail "worker on a missing queue exited with status $rc: $(tail -n 3 "$err" | tr '\n' ' ')"
  grep -q "queue '$queue' does not exist" "$err" || fail "worker did not report that '$queue' does not exist (log: $err)"
  [[ $AUTH_ON == 1 ]] || exit 0
  err="$LOG_DIR/$lang-refused.err"
  rc=0
  READPAST_API_KEY=rp_e2e-not-a-key READPAST_QUEUES=$queue timeout 60 "${CMD[@]}" >/dev/null 2>"$err" || rc=$?
  [[ $rc != 124 ]] || fail "worker with a wrong key still running after 60 s (log: $err)"
  [[ $rc == 1 ]] || fail "worker with a wrong key exited with status $rc, not 1 (log: $err)"
  grep -q "HTTP 401" "$err" || fail "worker with a wrong key did not print the broker's 401 (log: $err)"
)

# Fail fast when no broker answers.
ready=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$READPAST_URL/q/health/ready" || true)
if [[ $ready != 200 ]]; then
  echo "No ready broker at $READPAST_URL (GET /q/health/ready answered ${ready:-nothing})" >&2
  exit 2
fi
echo "worker output goes to $LOG_DIR"
# Does the broker require API keys? A claim with a key it cannot know answers 401 if so.
probe=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer rp_e2e-not-a-key' \
  -H 'Content-Type: application/json' --data-binary '{"workerId":"e2e-probe","queues":["e2e-probe"]}' \
  "$READPAST_URL/claim" || true)
AUTH_ON=0
[[ $probe != 401 ]] || AUTH_ON=1
[[ $AUTH_ON == 1 ]] || echo "the broker does not require API keys: the wrong-key checks are skipped"
if [[ $AUTH_ON == 1 && -z ${READPAST_API_KEY:-} ]]; then
  echo "The broker at $READPAST_URL requires API keys: set READPAST_API_KEY (the admin key from its log, or one with the producer and worker roles)" >&2
  exit 2
fi

passed=0
failed=0
# report NAME REASON-OR-EMPTY RC
report() {
  if [[ $3 == 0 ]]; then
    echo "PASS $1"
    passed=$((passed + 1))
  else
    echo "FAIL $1: ${2:-unknown error}"
    failed=$((failed + 1))
  fi
}

for lang in "${LANGS[@]}"; do
  rc=0
  reason=$(test_echo "$lang") || rc=$?
  report "$lang" "$reason" "$rc"
  if [[ $lang == python ]]; then
    rc=0
    reason=$(test_release python) || rc=$?
    report "python-sigint-release" "$reason" "$rc"
  fi
  rc=0
  reason=$(test_told "$lang") || rc=$?
  report "$lang-told" "$reason" "$rc"
done

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
