#!/usr/bin/env python3
"""Conformance agent for the Python library: `agent.py <mode>`, settings from the environment.

Modes (the runner, clients/conformance/run, starts it and reads its stdout):
  work     a worker on RP_QUEUE with the suite's handlers (noop, sleep, fail, trace)
  produce  the producer's calls, one line each for the runner to check through the API
  trace    enqueue with traceparents through the producer, then handle those jobs
  auth     a worker and a producer with a wrong key: both must raise AuthError
  bench    drain RP_BENCH_N no-op jobs of RP_QUEUE and print jobs/s
"""

import datetime
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import readpast  # noqa: E402

URL = os.environ["READPAST_URL"]
KEY = os.environ.get("READPAST_API_KEY")
QUEUE = os.environ.get("RP_QUEUE", "conformance")
out_lock = threading.Lock()


def out(*words):
    with out_lock:
        sys.stdout.write(" ".join(str(w) for w in words) + "\n")
        sys.stdout.flush()


def env_num(name, default):
    v = os.environ.get(name)
    return float(v) if v else default


def make_worker(queue=QUEUE, key=KEY):
    return readpast.Worker(
        URL, key, queues=[queue],
        concurrency=int(env_num("RP_CONCURRENCY", 4)),
        lease_seconds=int(env_num("RP_LEASE", 30)),
        wait_seconds=int(env_num("RP_WAIT", 2)),
        heartbeat_interval=env_num("RP_HEARTBEAT", 0) or None,
        shutdown_timeout=env_num("RP_SHUTDOWN", 10),
        worker_id=os.environ.get("RP_WORKER_ID"),
        backoff_base=env_num("RP_BACKOFF_BASE", 0.5),
    )


class BoomError(readpast.JobError):
    """The suite's always-failing handler raises this."""


def noop(job):
    out("ran", job.id, job.type, job.attempt)
    return {"ok": True}


def sleep(job):
    out("ran", job.id, job.type, job.attempt)
    seconds = float((job.payload or {}).get("seconds", 1))
    ignore = bool((job.payload or {}).get("ignoreCancel"))
    end = time.monotonic() + seconds
    told = False
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return {"slept": seconds}
        if job.cancelled.wait(left) and not told:
            told = True
            out("told", job.id, job.cancel_reason)
            if not ignore:
                raise readpast.JobCancelled(job.cancel_reason)
        if told:
            time.sleep(max(0.0, end - time.monotonic()))


def fail(job):
    out("ran", job.id, job.type, job.attempt)
    raise BoomError("always fails", retry_after=(job.payload or {}).get("retryAfter"))


def trace(job):
    out("trace", job.id, job.traceparent or "-")
    return None


def register(worker):
    worker.handle("noop", noop)
    worker.handle("sleep", sleep)
    worker.handle("fail", fail)
    worker.handle("trace", trace)


def work():
    worker = make_worker()
    register(worker)
    out("ready")
    try:
        worker.run()
    except readpast.ReadpastError as e:
        out("fatal", type(e).__name__, e.status)
        return 3
    s = worker.stats
    out("stats", f"completed={s['completed']}", f"failed={s['failed']}", f"released={s['released']}", f"lost={s['lost']}")
    out("exit", "ok")
    return 0


def produce():
    p = readpast.Producer(URL, KEY)
    now = datetime.datetime.now(datetime.timezone.utc)
    e = p.enqueue(QUEUE, "full", {"n": 1}, priority=7, tags=["a", "b"], max_attempts=4, delay=3600,
                  fairness_key="tenant-1", group_key="g-1", expires_at=now + datetime.timedelta(hours=2),
                  timeout=datetime.timedelta(minutes=5), retry={"delaysSeconds": [30]},
                  traceparent="00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
    out("single", e.id, str(e.created).lower())
    e = p.enqueue(QUEUE, "at", None, run_at=now + datetime.timedelta(hours=1))
    out("runat", e.id)
    a = p.enqueue(QUEUE, "idem", {"k": 1}, idempotency_key=QUEUE + "-key", delay=3600)
    b = p.enqueue(QUEUE, "idem", {"k": 1}, idempotency_key=QUEUE + "-key", delay=3600)
    out("idem", a.id, str(a.created).lower(), b.id, str(b.created).lower())
    u = p.enqueue(QUEUE, "uniq", {"u": 1}, unique_for=600, delay=3600)
    v = p.enqueue(QUEUE, "uniq", {"u": 1}, unique_for=600, delay=3600)
    out("unique", u.id, v.id, str(v.created).lower())
    d1 = p.enqueue(QUEUE, "deb", {"d": 1}, debounce_key=QUEUE + "-deb", debounce=3600)
    d2 = p.enqueue(QUEUE, "deb", {"d": 2}, debounce_key=QUEUE + "-deb", debounce=datetime.timedelta(hours=1))
    out("debounce", d1.id, str(d1.created).lower(), d2.id, str(d2.created).lower())
    items = p.enqueue_many([readpast.job(QUEUE, "m", {"i": 0}, delay=3600, priority=2),
                            readpast.job("bad queue!", "m"),
                            readpast.job(QUEUE, "m", {"i": 2}, delay=3600, fairness_key="tenant-2")])
    r = items[1]
    out("many", items[0].status, items[0].id, r.status, type(r.error).__name__, items[2].status, items[2].id)
    parent = p.enqueue(QUEUE, "parent", None, delay=3600)
    child = p.enqueue(QUEUE, "child", None, depends_on=[parent.id], on_parent_failure="run")
    out("depends", parent.id, child.id, child.status)
    batch = p.create_batch([readpast.job(QUEUE, "in-batch", {"i": 1}, delay=3600),
                            readpast.job(QUEUE, "in-batch", {"i": 2}, delay=3600)],
                           callback=readpast.job(QUEUE, "callback", {"album": 7}), fire_on="success")
    out("batch", batch["id"], batch["total"])
    try:
        p.enqueue("bad queue!", "x")
        out("invalid", "none", 0)
    except readpast.InvalidRequestError as e:
        out("invalid", type(e).__name__, e.status, e.type)
    try:
        p.get_job("999999999")
        out("notfound", "none", 0)
    except readpast.NotFoundError as e:
        out("notfound", type(e).__name__, e.status)
    out("exit", "ok")
    return 0


def trace_mode():
    p = readpast.Producer(URL, KEY)
    t1 = os.environ["RP_TRACEPARENT"]
    t2 = os.environ["RP_TRACEPARENT2"]
    e = p.enqueue(QUEUE, "trace", {"n": 1}, traceparent=t1)
    out("enqueued", e.id, t1)
    for r in p.enqueue_many([readpast.job(QUEUE, "trace", {"n": 2}), readpast.job(QUEUE, "trace", {"n": 3})],
                            traceparent=t2):
        out("enqueued", r.id, t2)
    worker = make_worker()
    seen = []

    def handler(job):
        out("trace", job.id, job.traceparent or "-")
        seen.append(job.id)
        if len(seen) >= 3:
            worker.stop()

    worker.handle("trace", handler)
    worker.run()
    out("exit", "ok")
    return 0


def auth():
    worker = make_worker(key="rp_wrong_" + str(os.getpid()))
    worker.handle("noop", noop)
    try:
        worker.run()
        out("worker-auth", "none", 0)
    except readpast.AuthError as e:
        out("worker-auth", type(e).__name__, e.status)
    except readpast.ReadpastError as e:
        out("worker-auth", "wrong:" + type(e).__name__, e.status)
    try:
        readpast.Producer(URL, "rp_wrong").enqueue(QUEUE, "noop")
        out("producer-auth", "none", 0)
    except readpast.AuthError as e:
        out("producer-auth", type(e).__name__, e.status)
    out("exit", "ok")
    return 0


def bench():
    """Drains RP_BENCH_N no-op jobs (after an untimed round of RP_BENCH_WARMUP) with
    RP_BENCH_WORKERS workers of RP_CONCURRENCY slots, and prints jobs/s."""
    n = int(env_num("RP_BENCH_N", 10000))
    warm = int(env_num("RP_BENCH_WARMUP", 5 * n))
    count = int(env_num("RP_BENCH_WORKERS", 4))
    conc = int(env_num("RP_CONCURRENCY", 500))
    producer = readpast.Producer(URL, KEY)

    def drain(queue, jobs):
        for start in range(0, jobs, 1000):
            producer.enqueue_many([readpast.job(queue, "noop")] * min(1000, jobs - start), minimal=True)
        workers = []
        for i in range(count):
            w = readpast.Worker(URL, KEY, queues=[queue], concurrency=conc, lease_seconds=60, wait_seconds=1,
                                handle_signals=False, worker_id=f"bench-python-{os.getpid()}-{i}")
            w.handle("noop", lambda job: None)
            workers.append(w)
        threads = [threading.Thread(target=w.run, daemon=True) for w in workers]
        c0 = time.process_time()
        t0 = time.monotonic()
        for t in threads:
            t.start()
        while sum(w.stats["completed"] for w in workers) < jobs:
            time.sleep(0.002)
        seconds = time.monotonic() - t0
        cpu = time.process_time() - c0
        for w in workers:
            w.stop()
        for t in threads:
            t.join()
        return sum(w.stats["completed"] for w in workers), seconds, cpu

    if warm:
        drain(QUEUE + "-warm", warm)
    done, seconds, cpu = drain(QUEUE, n)
    out("RESULT", "client-drain", "lang=python", f"jobs={done}", f"workers={count}", f"concurrency={conc}",
        f"seconds={seconds:.3f}", f"jobs_per_s={done / seconds:.1f}", f"cpu_s={cpu:.2f}", f"cpu_s_per_1k={cpu / done * 1000:.4f}")
    return 0


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "work"
    sys.exit({"work": work, "produce": produce, "trace": trace_mode, "auth": auth, "bench": bench}[mode]())
