"""The worker: claims jobs for its handlers, keeps their leases alive, reports how they ended."""

import collections
import json
import logging
import os
import random
import signal
import socket
import threading
import time
from typing import Any, Callable, Dict, Iterable, List, Optional

from ._http import Http
from .errors import ReadpastError, problem_error

log = logging.getLogger("readpast")

LEASE_LOST = "lease-lost"              # a heartbeat was answered 404/409: another worker may have the job
CANCEL_REQUESTED = "cancel-requested"  # an operator cancelled the job (POST /jobs/{id}/cancel)
SHUTDOWN = "shutdown"                  # the worker stopped and the shutdown deadline passed

Handler = Callable[["Job"], Any]


class JobError(Exception):
    """Raise it from a handler to choose how the job fails: ``retryable=False`` makes it DEAD at
    once; ``retry_after`` (seconds) replaces the broker's exponential backoff. Any other exception
    fails the job too (retryable), recorded as ``"<class>: <message>"``."""

    def __init__(self, message: str, *, retryable: bool = True, retry_after: Optional[float] = None):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class JobCancelled(Exception):
    """Raised by :meth:`Job.check` (and :meth:`Job.sleep` with ``raise_on_cancel``) once the job
    was cancelled: lease lost, cancel requested, or shutdown deadline passed (``reason``)."""

    def __init__(self, reason: str):
        super().__init__(f"job cancelled: {reason}")
        self.reason = reason


class Job:
    """A claimed job, as its handler sees it. ``payload`` is the decoded JSON payload; ``data``
    the whole job as the claim returned it; ``traceparent``/``tracestate`` the producer's W3C
    trace context (None when it sent none). ``cancelled`` is a threading.Event set when the
    handler should stop: ``cancel_reason`` then says why (LEASE_LOST, CANCEL_REQUESTED, SHUTDOWN)."""

    __slots__ = ("id", "queue", "type", "payload", "attempt", "max_attempts", "lease_id", "traceparent",
                 "tracestate", "data", "cancelled", "cancel_reason", "_state", "_progress")

    def __init__(self, data: Dict[str, Any]):
        self.data = data
        self.id: str = data["id"]
        self.queue: str = data["queue"]
        self.type: str = data["type"]
        self.payload: Any = data.get("payload")
        self.attempt: int = data.get("attempt", 1)
        self.max_attempts: int = data.get("maxAttempts", 0)
        self.lease_id: str = data["leaseId"]
        self.traceparent: Optional[str] = data.get("traceparent")
        self.tracestate: Optional[str] = data.get("tracestate")
        self.cancelled = threading.Event()
        self.cancel_reason: Optional[str] = None
        self._state = "running"  # running, finishing, done (ack pending), lost, released
        self._progress: Optional[Dict[str, Any]] = None

    def _cancel(self, reason: str) -> None:
        if self.cancel_reason is None:
            self.cancel_reason = reason
            self.cancelled.set()

    def check(self) -> None:
        """Raises JobCancelled when the job was cancelled."""
        if self.cancel_reason is not None:
            raise JobCancelled(self.cancel_reason)

    def sleep(self, seconds: float) -> bool:
        """Sleeps, waking early on cancellation; True when it slept the whole time."""
        return not self.cancelled.wait(seconds)

    def progress(self, percent: Optional[int] = None, message: Optional[str] = None) -> None:
        """Progress to report with the next heartbeat."""
        p: Dict[str, Any] = {}
        if percent is not None:
            p["percent"] = int(percent)
        if message is not None:
            p["message"] = message
        self._progress = p

    def __repr__(self) -> str:
        return f"Job(id={self.id!r}, type={self.type!r}, attempt={self.attempt})"


def error_text(exc: BaseException) -> str:
    """How a handler's exception is recorded: ``"<class>: <message>"``, at most 10000 characters."""
    cls = type(exc)
    name = cls.__qualname__ if cls.__module__ in ("builtins", "__main__") else f"{cls.__module__}.{cls.__qualname__}"
    msg = str(exc)
    return (f"{name}: {msg}" if msg else name)[:10000]


class _Dispatcher:
    """Runs jobs on up to ``size`` daemon threads, started as they are needed and woken one at a
    time: a thread that takes a job while more are queued wakes (or starts) one more, with one
    wake in flight at once. A burst of short jobs then runs on the threads already awake instead
    of waking one thread per job, while slow jobs still spread over every thread quickly."""

    def __init__(self, size: int, run: Callable[[Job], None]):
        self._run = run
        self._size = size
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._queue: "collections.deque[Job]" = collections.deque()
        self._started = 0
        self._parked = 0
        self._waking = False
        self._closed = False

    def submit(self, jobs: List[Job]) -> None:
        with self._lock:
            self._queue.extend(jobs)
            self._wake_one()

    def _wake_one(self) -> None:
        if self._waking or not self._queue:
            return
        if self._parked:
            self._waking = True
            self._work.notify()
        elif self._started < self._size:
            self._waking = True
            self._started += 1
            threading.Thread(target=self._loop, name=f"readpast-handler-{self._started}", daemon=True).start()

    def _loop(self) -> None:
        woken = True
        while True:
            with self._lock:
                if woken:
                    self._waking = woken = False
                while not self._queue and not self._closed:
                    self._parked += 1
                    self._work.wait()
                    self._parked -= 1
                    self._waking = False
                if not self._queue:
                    self._started -= 1
                    return
                job = self._queue.popleft()
                self._wake_one()  # more queued: one more thread
            self._run(job)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._work.notify_all()


class Worker:
    """Runs handlers by job type. ``worker.handle("send", fn)`` or ``@worker.handler("send")``;
    ``worker.run()`` blocks until SIGTERM/SIGINT or ``stop()``, then stops claiming, lets running
    handlers finish for up to ``shutdown_timeout`` seconds, acknowledges what finished and
    releases the rest. It raises AuthError/ForbiddenError (or another ReadpastError) when the
    broker refuses the claims for good.

    Settings: ``queues`` (default: every queue the key may use), ``concurrency`` (handler
    threads), ``lease_seconds``, ``wait_seconds`` (long-poll, 0-30), ``max_batch`` (largest claim,
    default ``concurrency``), ``heartbeat_interval`` (default a third of the lease),
    ``shutdown_timeout``, ``worker_id``, ``handle_signals`` (install SIGTERM/SIGINT handlers when
    run() is called on the main thread), ``backoff_base``/``backoff_cap`` (seconds, for 503s and
    connection errors; Retry-After is honoured)."""

    def __init__(self, url: str, api_key: Optional[str] = None, *, queues: Optional[Iterable[str]] = None,
                 concurrency: int = 10, lease_seconds: int = 30, wait_seconds: int = 20,
                 max_batch: Optional[int] = None, heartbeat_interval: Optional[float] = None,
                 shutdown_timeout: float = 30.0, worker_id: Optional[str] = None, handle_signals: bool = True,
                 backoff_base: float = 0.5, backoff_cap: float = 30.0, linger: float = 0.002):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.queues = list(queues) if queues else None
        self.concurrency = concurrency
        self.lease_seconds = int(lease_seconds)
        self.wait_seconds = int(wait_seconds)
        self.max_batch = max(1, min(1000, max_batch or concurrency))
        self.heartbeat_interval = heartbeat_interval or max(self.lease_seconds / 3.0, 0.2)
        self.shutdown_timeout = shutdown_timeout
        self.worker_id = worker_id or f"python-{socket.gethostname()}-{os.getpid()}"
        self.handle_signals = handle_signals
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.linger = linger
        self.http = Http(url, api_key, timeout=max(30.0, self.wait_seconds + 30.0))
        self.stats = {"claimed": 0, "completed": 0, "failed": 0, "released": 0, "lost": 0}
        self._handlers: Dict[str, Handler] = {}
        self._default: Optional[Handler] = None
        mutex = threading.Lock()  # guards the state below
        self._cond = threading.Condition(mutex)  # the claim loop waits here for _wake_at_free free slots
        self._flushable = threading.Condition(mutex)  # the ack flusher waits here
        self._wake_at_free = 1
        self._held: Dict[str, Job] = {}
        self._acks: List[Dict[str, Any]] = []
        self._running = 0
        self._in_poll = False
        self._stopping = threading.Event()
        self._stop_at = 0.0
        self._done = threading.Event()
        self._unknown_warned: set = set()

    # ---- set-up ------------------------------------------------------------------------------

    def handle(self, type: Optional[str], fn: Handler) -> None:
        """Registers ``fn(job) -> result`` for jobs of ``type`` (None: every type without its own
        handler; then the claims take every type)."""
        if type is None:
            self._default = fn
        else:
            self._handlers[type] = fn

    def handler(self, type: Optional[str]) -> Callable[[Handler], Handler]:
        """Decorator form of :meth:`handle`."""
        def register(fn: Handler) -> Handler:
            self.handle(type, fn)
            return fn
        return register

    def stop(self) -> None:
        """Asks run() to stop (thread-safe, idempotent): no more claims, running handlers get
        ``shutdown_timeout`` seconds to finish."""
        with self._cond:
            if not self._stopping.is_set():
                self._stop_at = time.monotonic()
                self._stopping.set()
            self._cond.notify_all()
            self._flushable.notify_all()

    # ---- the loop ----------------------------------------------------------------------------

    def run(self) -> None:
        if not self._handlers and self._default is None:
            raise ValueError("register a handler first: worker.handle(type, fn)")
        restore = self._install_signals()
        self._pool = _Dispatcher(self.concurrency, self._execute)
        beat = threading.Thread(target=self._heartbeat_loop, name="readpast-heartbeat", daemon=True)
        flush = threading.Thread(target=self._flush_loop, name="readpast-ack-flusher", daemon=True)
        beat.start()
        flush.start()
        fatal: Optional[ReadpastError] = None
        try:
            fatal = self._claim_loop()
        finally:
            if fatal is not None:
                self.stop()
            self._shutdown()
            self._pool.close()
            for sig, old in restore:
                signal.signal(sig, old)
            self.http.close()
        if fatal is not None:
            raise fatal

    def _install_signals(self) -> List[Any]:
        if not self.handle_signals or threading.current_thread() is not threading.main_thread():
            return []
        def on_signal(signum: int, _frame: Any) -> None:
            log.info("readpast worker %s: signal %s, stopping", self.worker_id, signum)
            threading.Thread(target=self.stop, daemon=True).start()  # never take locks in a signal handler
        restore = []
        for sig in (signal.SIGTERM, signal.SIGINT):
            restore.append((sig, signal.signal(sig, on_signal)))
        return restore

    def _backoff(self, attempt: int, retry_after: Optional[float]) -> float:
        if retry_after is not None:
            return retry_after * (1 + 0.2 * random.random())  # at least what the broker asked, jittered
        d = min(self.backoff_cap, self.backoff_base * (2 ** min(attempt, 20)))
        return d / 2 + random.random() * d / 2  # equal jitter

    def _claim_loop(self) -> Optional[ReadpastError]:
        failures = 0
        types = None if self._default is not None else sorted(self._handlers)
        while not self._stopping.is_set():
            with self._cond:
                self._wake_at_free = 1
                while self._running >= self.concurrency and not self._stopping.is_set():
                    self._cond.wait()
                if self._stopping.is_set():
                    break
                want = min(self.concurrency, self.max_batch)
                if self.concurrency - self._running < want and self.linger > 0:
                    end = time.monotonic() + self.linger  # let a few more slots free up: fewer, larger claims
                    self._wake_at_free = want
                    while self.concurrency - self._running < want and not self._stopping.is_set():
                        left = end - time.monotonic()
                        if left <= 0:
                            break
                        self._cond.wait(left)
                    self._wake_at_free = 1
                limit = min(self.concurrency - self._running, self.max_batch)
                acks, self._acks = self._acks[:1000], self._acks[1000:]
                wait = 0 if acks else self.wait_seconds  # acks never wait in a long poll
                self._in_poll = wait > 0
                if self._in_poll and self._acks:
                    self._flushable.notify()
            body: Dict[str, Any] = {"workerId": self.worker_id, "limit": limit, "leaseSeconds": self.lease_seconds}
            if wait:
                body["waitSeconds"] = wait
            if self.queues:
                body["queues"] = self.queues
            if types:
                body["types"] = types
            if acks:
                body["ack"] = acks
            try:
                answer = self.http.request("POST", "/claim", body)
            except ReadpastError as e:
                with self._cond:
                    self._in_poll = False
                    self._acks[:0] = acks
                if not e.retryable:
                    log.error("readpast worker %s: the broker refused the claim: %s", self.worker_id, e)
                    return e
                delay = self._backoff(failures, e.retry_after)
                if e.retry_after is None:
                    failures += 1  # Retry-After sets the pace itself
                log.warning("readpast worker %s: claim failed (%s); retrying in %.1fs", self.worker_id, e, delay)
                self._stopping.wait(delay)
                continue
            with self._cond:
                self._in_poll = False
            failures = 0
            if acks:
                self._acked(acks, answer.get("acks") or [])
            for q in answer.get("unknownQueues") or ():
                if q not in self._unknown_warned:
                    self._unknown_warned.add(q)
                    log.warning("readpast worker %s: queue %r does not exist (nothing was ever enqueued there)", self.worker_id, q)
            jobs = answer.get("jobs") or []
            if not jobs:
                if not wait and not acks:
                    self._stopping.wait(1.0)  # wait_seconds=0: poll every second
                continue
            fresh = [Job(j) for j in jobs]
            with self._cond:
                self.stats["claimed"] += len(fresh)
                if self._stopping.is_set():
                    late = fresh
                else:
                    late = []
                    for job in fresh:
                        self._held[job.id] = job
                    self._running += len(fresh)
            if late:
                self._release(late)
                break
            self._pool.submit(fresh)
        return None

    # ---- handlers ----------------------------------------------------------------------------

    def _execute(self, job: Job) -> None:
        fn = self._handlers.get(job.type, self._default)
        try:
            if fn is None:
                raise JobError(f"no handler for job type {job.type!r}", retryable=False)
            result = fn(job)
            if result is not None and not isinstance(result, (str, int, float, bool)):
                json.dumps(result)  # a result that cannot be sent fails the job, not the acks
        except BaseException as e:  # noqa: B902 - a handler's failure is the job's, never the worker's
            self._finished(job, None, e)
        else:
            self._finished(job, result, None)

    def _finished(self, job: Job, result: Any, error: Optional[BaseException]) -> None:
        with self._cond:
            self._running -= 1
            if self.concurrency - self._running >= self._wake_at_free:
                self._cond.notify()
            if job._state != "running":  # lost, or released at the shutdown deadline
                if job._state == "lost":
                    self._held.pop(job.id, None)
                return
            if error is None and job.cancel_reason is None:
                job._state = "done"
                self._acks.append({"id": job.id, "leaseId": job.lease_id, "result": result})
                if self._in_poll:
                    self._flushable.notify()
                return
            job._state = "finishing"
        if job.cancel_reason == CANCEL_REQUESTED:  # failing it makes it CANCELLED
            why = f" ({error_text(error)})" if error is not None and not isinstance(error, JobCancelled) else ""
            body = {"leaseId": job.lease_id, "error": "cancelled on request" + why, "retryable": False}
        else:
            body = {"leaseId": job.lease_id, "error": error_text(error), "retryable": True}
            if isinstance(error, JobError):
                body["retryable"] = error.retryable
                if error.retry_after is not None:
                    body["retryAfterSeconds"] = int(round(error.retry_after))
        self._call_with_retries("POST", f"/jobs/{job.id}/fail", body, job)
        with self._cond:
            self._held.pop(job.id, None)
            self.stats["failed"] += 1

    def _call_with_retries(self, method: str, path: str, body: Any, job: Job) -> None:
        for attempt in range(6):
            try:
                self.http.request(method, path, body)
                return
            except ReadpastError as e:
                if e.status in (404, 409):
                    if attempt == 0:
                        log.warning("readpast worker %s: job %s: %s (lease lost)", self.worker_id, job.id, e)
                    return  # a repeat whose first try took effect, or a lease that is gone
                if not e.retryable or attempt == 5:
                    log.error("readpast worker %s: %s %s failed: %s", self.worker_id, method, path, e)
                    return
                time.sleep(self._backoff(attempt, e.retry_after))

    def _acked(self, items: List[Dict[str, Any]], answers: List[Dict[str, Any]]) -> None:
        with self._cond:
            for item, answer in zip(items, answers):
                job = self._held.pop(item["id"], None)
                status = answer.get("status")
                if status == 200:
                    self.stats["completed"] += 1
                elif status in (404, 409):
                    self.stats["lost"] += 1
                    log.warning("readpast worker %s: job %s finished but its lease was lost", self.worker_id, item["id"])
                else:
                    log.error("readpast worker %s: complete %s refused: %s", self.worker_id, item["id"],
                              problem_error(answer.get("error"), status or 0))
                if job is not None and job._state == "done":
                    job._state = "acked"

    # ---- acks while a claim long-polls ----------------------------------------------------

    def _flush_loop(self) -> None:
        failures = 0
        while True:
            with self._cond:
                while not (self._acks and self._in_poll) and not self._done.is_set():
                    self._flushable.wait()
                if self._done.is_set():
                    return
            time.sleep(0.005)  # a few more may come
            with self._cond:
                if not self._in_poll or not self._acks:
                    continue
                items, self._acks = self._acks[:1000], self._acks[1000:]
            if not self._complete(items):
                failures += 1
                time.sleep(min(5.0, 0.2 * failures))
            else:
                failures = 0

    def _complete(self, items: List[Dict[str, Any]]) -> bool:
        try:
            answer = self.http.request("POST", "/jobs/complete", {"items": items})
        except ReadpastError as e:
            log.warning("readpast worker %s: complete of %d jobs failed: %s", self.worker_id, len(items), e)
            with self._cond:
                self._acks[:0] = items
            return False
        self._acked(items, answer.get("results") or [])
        return True

    # ---- heartbeats ------------------------------------------------------------------------

    def _heartbeat_loop(self) -> None:
        delay = self.heartbeat_interval
        while not self._done.wait(delay):
            delay = self.heartbeat_interval
            with self._cond:
                jobs = [j for j in self._held.values() if j._state in ("running", "finishing", "done")]
            for start in range(0, len(jobs), 1000):
                chunk = jobs[start:start + 1000]
                items = []
                for j in chunk:
                    item = {"id": j.id, "leaseId": j.lease_id, "leaseSeconds": self.lease_seconds}
                    if j._progress is not None:
                        item["progress"], j._progress = j._progress, None
                    items.append(item)
                try:
                    answer = self.http.request("POST", "/jobs/heartbeat", {"items": items})
                except ReadpastError as e:
                    log.warning("readpast worker %s: heartbeat failed: %s", self.worker_id, e)
                    delay = min(self.heartbeat_interval, max(0.5, e.retry_after or 1.0))
                    continue
                for j, r in zip(chunk, answer.get("results") or []):
                    status = r.get("status")
                    if status == 200:
                        if r.get("cancelRequested") and j._state == "running":
                            log.info("readpast worker %s: job %s: cancel requested", self.worker_id, j.id)
                            j._cancel(CANCEL_REQUESTED)
                    elif status in (404, 409):
                        with self._cond:
                            if j._state == "running":
                                j._state = "lost"
                                self.stats["lost"] += 1
                                log.warning("readpast worker %s: job %s: lease lost", self.worker_id, j.id)
                                j._cancel(LEASE_LOST)

    # ---- shutdown --------------------------------------------------------------------------

    def _release(self, jobs: List[Job]) -> None:
        for start in range(0, len(jobs), 1000):
            chunk = jobs[start:start + 1000]
            for attempt in range(4):
                try:
                    answer = self.http.request("POST", "/jobs/release",
                                               {"items": [{"id": j.id, "leaseId": j.lease_id} for j in chunk]})
                except ReadpastError as e:
                    if not e.retryable or attempt == 3:
                        log.error("readpast worker %s: release of %d jobs failed: %s", self.worker_id, len(chunk), e)
                        break
                    time.sleep(self._backoff(attempt, e.retry_after))
                    continue
                with self._cond:
                    self.stats["released"] += sum(1 for r in answer.get("results") or [] if r.get("status") == 200)
                break

    def _shutdown(self) -> None:
        deadline = self._stop_at + self.shutdown_timeout
        with self._cond:
            while self._running > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            leftovers = [j for j in self._held.values() if j._state == "running"]
            for j in leftovers:
                j._state = "released"
                self._held.pop(j.id, None)
                j._cancel(SHUTDOWN)
            acks, self._acks = self._acks, []
        for start in range(0, len(acks), 1000):
            for attempt in range(4):
                if self._complete(acks[start:start + 1000]):
                    break
                with self._cond:
                    self._acks = []
                time.sleep(self._backoff(attempt, None))
        if leftovers:
            log.warning("readpast worker %s: releasing %d unfinished jobs", self.worker_id, len(leftovers))
            self._release(leftovers)
        with self._cond:
            self._done.set()
            self._cond.notify_all()
            self._flushable.notify_all()
        log.info("readpast worker %s stopped: %s", self.worker_id, self.stats)
