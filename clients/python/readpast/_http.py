"""A small JSON-over-HTTP client: keep-alive connections from a pool, problem+json as exceptions."""

import email.utils
import http.client
import json
import threading
import time
import urllib.parse
from typing import Any, Dict, List, Optional

from .errors import ConnectionFailed, ReadpastError, error_for

_STALE = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After as seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class Http:
    """Sends JSON requests to one broker. Thread-safe; idle connections are reused."""

    def __init__(self, url: str, api_key: Optional[str] = None, timeout: float = 60.0, user_agent: str = "readpast-python"):
        parts = urllib.parse.urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._timeout = timeout
        self._headers = {"Accept": "application/json", "User-Agent": user_agent}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._idle: List[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return cls(self._host, self._port, timeout=timeout)

    def request(self, method: str, path: str, body: Any = None, headers: Optional[Dict[str, str]] = None,
                timeout: Optional[float] = None, with_status: bool = False) -> Any:
        """Sends one request; returns the decoded JSON answer (None when empty), or (status, answer)
        with ``with_status``; raises ReadpastError for anything but 2xx."""
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        hdrs = dict(self._headers)
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        if headers:
            hdrs.update(headers)
        timeout = timeout or self._timeout
        for attempt in (0, 1):
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            reused = conn is not None
            if conn is None:
                conn = self._connect(timeout)
            elif conn.sock is not None:
                conn.sock.settimeout(timeout)
            try:
                conn.request(method, self._prefix + path, body=data, headers=hdrs)
                resp = conn.getresponse()
                raw = resp.read()
            except _STALE as e:
                conn.close()
                if reused and attempt == 0:
                    continue  # the broker closed an idle keep-alive connection: once more on a new one
                raise ConnectionFailed(f"{method} {path}: {e!r}") from None
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                raise ConnectionFailed(f"{method} {path}: {e!r}") from None
            if resp.will_close:
                conn.close()
            else:
                with self._lock:
                    self._idle.append(conn)
            status = resp.status
            if 200 <= status < 300:
                answer = json.loads(raw) if raw else None
                return (status, answer) if with_status else answer
            text = raw.decode("utf-8", "replace")
            try:
                problem = json.loads(text)
            except ValueError:
                problem = None
            raise error_for(status, problem, text.strip()[:500], parse_retry_after(resp.getheader("Retry-After")),
                            resp.getheader("X-Request-Id"))
        raise ReadpastError(0, "unreachable")  # pragma: no cover

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            try:
                conn.close()
            except OSError:
                pass


__all__ = ["Http", "parse_retry_after"]
