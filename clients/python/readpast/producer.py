"""The producer: enqueue jobs one at a time, in batches of up to 1000, or as a batch with a callback."""

import datetime as _dt
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from ._http import Http
from .errors import ReadpastError, problem_error

Seconds = Union[int, float, _dt.timedelta]
When = Union[str, _dt.datetime]

_FIELDS = {  # keyword argument -> POST /jobs field
    "priority": "priority", "delay": "delaySeconds", "run_at": "runAt", "tags": "tags",
    "max_attempts": "maxAttempts", "idempotency_key": "idempotencyKey", "unique_for": "uniqueFor",
    "expires_at": "expiresAt", "group_key": "groupKey", "fairness_key": "fairnessKey",
    "depends_on": "dependsOn", "on_parent_failure": "onParentFailure", "webhook_url": "webhookUrl",
    "traceparent": "traceparent", "tracestate": "tracestate", "timeout": "timeoutSeconds",
    "retry": "retry", "debounce_key": "debounceKey", "debounce": "debounceSeconds",
}


def _seconds(value: Seconds) -> int:
    if isinstance(value, _dt.timedelta):
        value = value.total_seconds()
    return int(round(value))


def _instant(value: When) -> str:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            raise ValueError("give an aware datetime (with tzinfo), e.g. datetime.now(timezone.utc)")
        return value.isoformat()
    return value


def job(queue: str, type: str, payload: Any = None, **options: Any) -> Dict[str, Any]:
    """A POST /jobs body. Options (all optional): priority, delay (seconds or timedelta), run_at
    (aware datetime or ISO-8601 text), tags, max_attempts, idempotency_key, unique_for (seconds),
    expires_at, group_key, fairness_key, depends_on ({"jobs": [...], "batches": [...]}, or a list
    of job ids), on_parent_failure ("cancel" or "run"), webhook_url, traceparent, tracestate,
    timeout (the most the job may run from its claim: seconds or timedelta), retry (its own backoff:
    {"baseSeconds", "factor", "capSeconds", "jitter"} or {"delaysSeconds": [...]}), debounce_key with
    debounce (seconds or timedelta): the first enqueue opens a window and the job runs at its end;
    another with the same key inside it replaces that job's payload and priority (created False).
    Debounce is for single enqueues, without idempotency_key, unique_for, group_key, depends_on,
    run_at or delay."""
    body: Dict[str, Any] = {"queue": queue, "type": type}
    if payload is not None:
        body["payload"] = payload
    for name, value in options.items():
        if name not in _FIELDS:
            raise TypeError(f"unknown job option {name!r}; known: {', '.join(sorted(_FIELDS))}")
        if value is None:
            continue
        if name in ("delay", "unique_for", "timeout", "debounce"):
            value = _seconds(value)
        elif name in ("run_at", "expires_at"):
            value = _instant(value)
        elif name == "depends_on" and not isinstance(value, dict):
            value = {"jobs": [str(v) for v in value]}
        elif name == "tags":
            value = list(value)
        body[_FIELDS[name]] = value
    return body


@dataclass
class Enqueued:
    """The answer to an enqueue: ``created`` is False when an idempotency key, uniqueFor window or
    debounce window matched an existing job, which ``job`` then is."""
    id: str
    status: str
    created: bool
    job: Dict[str, Any]


@dataclass
class ItemResult:
    """One item of a batch enqueue: ``status`` 201 created, 200 matched an existing job, else
    ``error`` tells why it was refused."""
    index: int
    status: int
    id: Optional[str]
    job: Optional[Dict[str, Any]]
    error: Optional[ReadpastError]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def created(self) -> bool:
        return self.status == 201


class Producer:
    """Enqueues jobs. ``Producer(url, api_key)``; every method raises a ReadpastError subclass
    (InvalidRequestError, AuthError, ForbiddenError, NotFoundError, ConflictError,
    UnavailableError, ConnectionFailed) when the broker refuses the whole request."""

    def __init__(self, url: str, api_key: Optional[str] = None, *, timeout: float = 30.0):
        self.http = Http(url, api_key, timeout)

    def enqueue(self, queue: str, type: str, payload: Any = None, **options: Any) -> Enqueued:
        """Enqueues one job (POST /jobs); options as for :func:`job`."""
        status, j = self.http.request("POST", "/jobs", job(queue, type, payload, **options), with_status=True)
        return Enqueued(j["id"], j["status"], status == 201, j)

    def enqueue_many(self, jobs: Iterable[Dict[str, Any]], *, traceparent: Optional[str] = None,
                     tracestate: Optional[str] = None, minimal: bool = False) -> List[ItemResult]:
        """Enqueues many jobs (POST /jobs/batch, 1000 per request, each item on its own): build the
        items with :func:`job`. traceparent/tracestate apply to items that carry none.
        Returns one ItemResult per job, in order; ``minimal`` leaves the jobs out of the answers."""
        items = list(jobs)
        headers = {"Prefer": "return=minimal"} if minimal else None
        out: List[ItemResult] = []
        for start in range(0, len(items), 1000):
            chunk = items[start:start + 1000]
            if traceparent:
                chunk = [dict(it, traceparent=it.get("traceparent") or traceparent,
                              **({"tracestate": it.get("tracestate") or tracestate} if tracestate else {}))
                         for it in chunk]
            answer = self.http.request("POST", "/jobs/batch", {"jobs": chunk}, headers)
            for r in answer["results"]:
                status = r["status"]
                err = problem_error(r.get("error"), status) if r.get("error") else None
                out.append(ItemResult(start + r["index"], status, r.get("id"), r.get("job"), err))
        return out

    def create_batch(self, jobs: Sequence[Dict[str, Any]] = (), *, callback: Optional[Dict[str, Any]] = None,
                     fire_on: Optional[str] = None, open: Optional[bool] = None,
                     webhook_url: Optional[str] = None) -> Dict[str, Any]:
        """POST /batches: jobs that settle together, and a callback job (``job(queue, type,
        payload)``; priority and max_attempts too) enqueued once when the batch fires on
        ``fire_on`` "completion" (default), "success" or "death". Returns the batch
        (``["id"]``, state, counts)."""
        body: Dict[str, Any] = {"jobs": list(jobs)}
        if callback is not None:
            body["callback"] = {k: v for k, v in callback.items() if k in ("queue", "type", "payload", "priority", "maxAttempts")}
        if fire_on is not None:
            body["fireOn"] = fire_on
        if open is not None:
            body["open"] = open
        if webhook_url is not None:
            body["webhookUrl"] = webhook_url
        return self.http.request("POST", "/batches", body)

    def add_to_batch(self, batch_id: str, jobs: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
        """POST /batches/{id}/jobs: more jobs for an open batch."""
        return self.http.request("POST", f"/batches/{batch_id}/jobs", {"jobs": list(jobs)})

    def close_batch(self, batch_id: str) -> Dict[str, Any]:
        """POST /batches/{id}/close: the batch takes no more jobs, and fires once they settle."""
        return self.http.request("POST", f"/batches/{batch_id}/close")

    def get_batch(self, batch_id: str) -> Dict[str, Any]:
        return self.http.request("GET", f"/batches/{batch_id}")

    def get_job(self, job_id: str) -> Dict[str, Any]:
        """GET /jobs/{id}: the job wherever it lives, with ``errors`` (one per failed attempt)."""
        return self.http.request("GET", f"/jobs/{job_id}")

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> "Producer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
