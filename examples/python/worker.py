#!/usr/bin/env python3
"""Readpast example worker: Python 3, standard library only.

Claims batches of jobs, runs a handler for each while a background thread keeps the leases
alive, and fails each failed job at once; successes are acknowledged with the next claim
("ack": one request completes the batch and leases the next). On Ctrl-C / SIGTERM it stops
claiming, acknowledges what it finished, gives back (releases) every job it still holds, and
exits 0.

Configuration (environment):
  READPAST_URL            broker base URL (default http://localhost:8080)
  READPAST_API_KEY        sent as "Authorization: Bearer <key>" when set
  READPAST_QUEUES         comma-separated queue names (default: every queue)
  READPAST_WORKER_ID      default python-<pid>
  READPAST_BATCH          jobs per claim (default 10)
  READPAST_LEASE_SECONDS  lease length (default 30); heartbeats every third of it
  READPAST_EXIT_WHEN_IDLE exit 0 after this many seconds without jobs (unset: run forever)

Stdout gets one line per job: "completed <id> <type>", "failed <id> <type>",
"released <id> <type>" or "lost <id> <type>". Diagnostics go to stderr. When the broker refuses
the key (401) or its role or queues (403), it prints the broker's reason and exits 1.
"""

import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request


def env(name, default=None):
    value = os.environ.get(name, "").strip()
    return value if value else default


URL = env("READPAST_URL", "http://localhost:8080").rstrip("/")
API_KEY = env("READPAST_API_KEY")
QUEUES = [q.strip() for q in env("READPAST_QUEUES", "").split(",") if q.strip()]
WORKER_ID = env("READPAST_WORKER_ID", f"python-{os.getpid()}")
BATCH = int(env("READPAST_BATCH", "10"))
LEASE_SECONDS = int(env("READPAST_LEASE_SECONDS", "30"))
EXIT_WHEN_IDLE = float(env("READPAST_EXIT_WHEN_IDLE")) if env("READPAST_EXIT_WHEN_IDLE") else None

stop = threading.Event()      # set by Ctrl-C / SIGTERM: stop claiming, release what we hold
held = {}                     # job id -> claimed job we have not yet completed/failed/released
held_lock = threading.Lock()  # guards `held` (the heartbeat thread reads it too)


def log(line):
    print(line, flush=True)


def warn(line):
    print(f"[{WORKER_ID}] {line}", file=sys.stderr, flush=True)


# ---- HTTP ------------------------------------------------------------------------------

class ApiError(Exception):
    """A non-2xx answer; `detail` comes from the problem+json body when there is one."""

    def __init__(self, status, detail):
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status


def call(method, path, body=None):
    """Sends one JSON request and returns the decoded JSON answer (None for an empty body)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(URL + path, data=data, method=method)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if API_KEY:
        req.add_header("Authorization", f"Bearer {API_KEY}")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read().decode(errors="replace")
        try:
            problem = json.loads(raw)
            detail = problem.get("detail") or problem.get("title") or raw
        except ValueError:
            detail = raw
        raise ApiError(e.code, detail) from None


# ---- Job handlers ----------------------------------------------------------------------

class JobFailed(Exception):
    """Raised by a handler to fail a job; retryable=False sends it straight to DEAD."""

    def __init__(self, message, retryable=True):
        super().__init__(message)
        self.retryable = retryable


class Interrupted(Exception):
    """The handler stopped early: shutdown was requested or the lease was lost."""


def pause(seconds, job):
    """Sleeps, but wakes up early (raising Interrupted) on shutdown or when the lease is lost."""
    deadline = time.monotonic() + seconds
    while True:
        if stop.is_set():
            raise Interrupted("shutting down")
        with held_lock:
            if job["id"] not in held:
                raise Interrupted("lease lost")
        left = deadline - time.monotonic()
        if left <= 0:
            return
        stop.wait(min(left, 0.2))


def handle(job, traceparent=None, tracestate=None):
    """Does the work for one job and returns its result (any JSON value).

    traceparent/tracestate are the W3C trace context the producer sent with the job (None when
    it sent none): hand them to your tracing SDK to continue the producer's trace."""
    payload = job.get("payload")
    if job["type"] == "echo":
        return {"echo": payload}
    if job["type"] == "fail":
        raise JobFailed("this job asked to fail", retryable=False)
    if job["type"] == "sleep":
        seconds = payload.get("seconds", 1) if isinstance(payload, dict) else 1
        pause(float(seconds), job)
        return {"slept": seconds}
    return {"ok": True}


# ---- Lease bookkeeping -----------------------------------------------------------------

def finish(job, action, body, word):
    """Completes, fails or releases a held job and logs `<word> <id> <type>`."""
    with held_lock:
        still_held = held.pop(job["id"], None) is not None
    if not still_held:  # the heartbeat thread already saw the lease go
        log(f"lost {job['id']} {job['type']}")
        return
    try:
        call("POST", f"/jobs/{job['id']}/{action}", {"leaseId": job["leaseId"], **body})
        log(f"{word} {job['id']} {job['type']}")
    except ApiError as e:
        if e.status == 409:
            log(f"lost {job['id']} {job['type']}")
        else:
            warn(f"{action} {job['id']} failed: {e}")
    except OSError as e:
        warn(f"{action} {job['id']} failed: {e}")


def per_item(path, jobs, item):
    """POSTs the jobs to a batch lease call as {"items": [...]}, 1000 per request; yields
    (job, answer) for each job of a request that was answered (the broker answers each item)."""
    for start in range(0, len(jobs), 1000):
        chunk = jobs[start:start + 1000]
        try:
            answers = call("POST", path, {"items": [item(job) for job in chunk]})["results"]
        except (ApiError, OSError) as e:
            warn(f"{path} of {len(chunk)} jobs failed: {e}")
            continue
        yield from zip(chunk, answers)


def heartbeat_loop():
    """Background thread: extends the lease of every held job every leaseSeconds/3, in one
    POST /jobs/heartbeat per 1000 jobs."""
    interval = max(LEASE_SECONDS / 3, 1)
    while True:
        time.sleep(interval)
        with held_lock:
            jobs = list(held.values())
        beat = lambda job: {"id": job["id"], "leaseId": job["leaseId"], "leaseSeconds": LEASE_SECONDS}
        for job, answer in per_item("/jobs/heartbeat", jobs, beat):
            if answer["status"] == 200:
                continue
            with held_lock:  # 404/409 after we finished the job ourselves is not news
                lost = answer["status"] in (404, 409) and held.pop(job["id"], None) is not None
            if lost and "ack" in job:  # done, but the lease went before the ack
                log(f"lost {job['id']} {job['type']}")
            elif lost:
                warn(f"lease lost for job {job['id']}; stopping work on it")
            elif answer["status"] not in (404, 409):
                warn(f"heartbeat {job['id']} failed: {answer.get('error')}")


def release_all(jobs):
    """Gives held jobs back unworked (no attempt spent), in one POST /jobs/release per 1000."""
    mine = []
    for job in jobs:
        with held_lock:
            still_held = held.pop(job["id"], None) is not None
        if still_held:
            mine.append(job)
        else:  # the heartbeat thread already saw the lease go
            log(f"lost {job['id']} {job['type']}")
    for job, answer in per_item("/jobs/release", mine, lambda job: {"id": job["id"], "leaseId": job["leaseId"]}):
        if answer["status"] == 200:
            log(f"released {job['id']} {job['type']}")
        elif answer["status"] in (404, 409):
            log(f"lost {job['id']} {job['type']}")
        else:
            warn(f"release {job['id']} failed: {answer.get('error')}")


def process(job):
    try:
        result = handle(job, job.get("traceparent"), job.get("tracestate"))
    except Interrupted:
        if stop.is_set():
            finish(job, "release", {}, "released")  # give it back unworked
        else:
            log(f"lost {job['id']} {job['type']}")  # the heartbeat thread saw the lease go
    except JobFailed as e:
        finish(job, "fail", {"error": str(e), "retryable": e.retryable}, "failed")
    except Exception as e:  # a bug in a handler: fail the job, but let it be retried
        finish(job, "fail", {"error": repr(e), "retryable": True}, "failed")
    else:
        with held_lock:  # still held (and heartbeated) until the next claim acknowledges it
            if job["id"] in held:
                job["ack"] = {"id": job["id"], "leaseId": job["leaseId"], "result": result}
                return
        log(f"lost {job['id']} {job['type']}")


def acknowledged(jobs, answers):
    """Logs the broker's answer for each acknowledged job and forgets the job."""
    for job, answer in zip(jobs, answers):
        with held_lock:
            held.pop(job["id"], None)
        if answer["status"] == 200:
            log(f"completed {job['id']} {job['type']}")
        elif answer["status"] in (404, 409):
            log(f"lost {job['id']} {job['type']}")
        else:
            warn(f"complete {job['id']} failed: {answer.get('error')}")


unknown_warned = set()  # queue names the broker said do not exist, already reported


def claim():
    """Acknowledges the finished jobs and claims the next batch, in one request."""
    with held_lock:
        done = [job for job in held.values() if "ack" in job]
    body = {"workerId": WORKER_ID, "limit": BATCH, "leaseSeconds": LEASE_SECONDS}
    if QUEUES:
        body["queues"] = QUEUES
    if done:
        body["ack"] = [job["ack"] for job in done]
    answer = call("POST", "/claim", body)
    acknowledged(done, answer.get("acks", []))
    for queue in answer.get("unknownQueues", []):  # listed only in empty answers
        if queue not in unknown_warned:
            unknown_warned.add(queue)
            warn(f"queue '{queue}' does not exist on the broker (nothing was ever enqueued there): check READPAST_QUEUES")
    return answer["jobs"]


# ---- Main loop -------------------------------------------------------------------------

def main():
    def on_signal(signum, _frame):
        warn(f"got signal {signum}: finishing up")
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    threading.Thread(target=heartbeat_loop, daemon=True).start()
    warn(f"worker {WORKER_ID} polling {URL} queues={QUEUES or 'all'}")

    last_job = time.monotonic()
    idle_sleep = 0.5
    status = 0
    while not stop.is_set():
        try:
            jobs = claim()
        except ApiError as e:
            if e.status in (401, 403):  # retrying cannot help: the key is wrong or lacks the worker role
                warn(f"the broker refused this worker: {e} (set READPAST_API_KEY to a key with the worker role)")
                status = 1
                break
            warn(f"claim failed: {e}")
            jobs = []
        except OSError as e:
            warn(f"claim failed: {e}")
            jobs = []
        if not jobs:
            if EXIT_WHEN_IDLE is not None and time.monotonic() - last_job >= EXIT_WHEN_IDLE:
                warn(f"idle for {EXIT_WHEN_IDLE:g}s: exiting")
                break
            stop.wait(idle_sleep)  # nothing to do: back off a little (0.5 s up to 2 s)
            idle_sleep = min(idle_sleep * 1.5, 2.0)
            continue
        idle_sleep = 0.5
        with held_lock:
            for job in jobs:
                held[job["id"]] = job
        for job in jobs:
            if stop.is_set():
                break
            process(job)
        last_job = time.monotonic()

    # Shutdown: acknowledge what is done, give back the rest without spending an attempt.
    with held_lock:
        done = [job for job in held.values() if "ack" in job]
    if done:
        try:
            answer = call("POST", "/jobs/complete", {"items": [job["ack"] for job in done]})
            acknowledged(done, answer["results"])
        except (ApiError, OSError) as e:
            warn(f"complete failed: {e}")
    with held_lock:
        leftovers = [job for job in held.values() if "ack" not in job]
    release_all(leftovers)
    return status


if __name__ == "__main__":
    sys.exit(main())
