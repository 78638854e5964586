"""Exceptions: one class per kind of problem+json answer, all under ReadpastError."""

from typing import Any, Dict, Optional


class ReadpastError(Exception):
    """A refused request (an RFC 9457 problem document) or a broker that could not be reached.

    ``status`` is the HTTP status (0 when no answer came), ``type``/``title``/``detail``/
    ``instance`` come from the problem document, ``retry_after`` (seconds) from the
    Retry-After header, ``request_id`` from X-Request-Id."""

    def __init__(self, status: int, detail: str, *, type: Optional[str] = None, title: Optional[str] = None,
                 instance: Optional[str] = None, retry_after: Optional[float] = None,
                 request_id: Optional[str] = None, problem: Optional[Dict[str, Any]] = None):
        super().__init__(f"HTTP {status}: {detail}" if status else detail)
        self.status = status
        self.detail = detail
        self.type = type
        self.title = title
        self.instance = instance
        self.retry_after = retry_after
        self.request_id = request_id
        self.problem = problem or {}

    @property
    def retryable(self) -> bool:
        """True for answers worth retrying later: 503 and other 5xx, 429, no answer at all."""
        return self.status == 0 or self.status == 429 or self.status >= 500


class InvalidRequestError(ReadpastError):
    """400: the body or a parameter was refused (the detail names the field)."""


class AuthError(ReadpastError):
    """401: no API key, or one the broker does not know."""


class ForbiddenError(ReadpastError):
    """403: the key lacks the role, or the queue is outside its scope."""


class NotFoundError(ReadpastError):
    """404: no such job, queue or batch."""


class ConflictError(ReadpastError):
    """409: the lease is not held, or the job's state does not allow the call."""


class UnavailableError(ReadpastError):
    """503 (and other 5xx): the broker or its database is unavailable; see ``retry_after``."""


class ConnectionFailed(ReadpastError):
    """No answer: the connection failed or timed out (status 0)."""

    def __init__(self, detail: str):
        super().__init__(0, detail)


_BY_STATUS = {400: InvalidRequestError, 401: AuthError, 403: ForbiddenError, 404: NotFoundError,
              409: ConflictError}


def error_for(status: int, problem: Optional[Dict[str, Any]], raw: str, retry_after: Optional[float] = None,
              request_id: Optional[str] = None) -> ReadpastError:
    """The exception for a non-2xx answer."""
    problem = problem if isinstance(problem, dict) else {}
    detail = problem.get("detail") or problem.get("title") or raw or f"HTTP {status}"
    cls = _BY_STATUS.get(status) or (UnavailableError if status >= 500 else ReadpastError)
    return cls(status, detail, type=problem.get("type"), title=problem.get("title"),
               instance=problem.get("instance"), retry_after=retry_after, request_id=request_id, problem=problem)


def problem_error(problem: Optional[Dict[str, Any]], status: int) -> ReadpastError:
    """The exception for a per-item error of a batch answer."""
    return error_for(status, problem, "")
