"""Unit tests of the Python library, against a small fake broker (no network beyond loopback)."""

import datetime
import http.server
import json
import socketserver
import threading
import time
import unittest

import readpast
from readpast._http import parse_retry_after


class FakeBroker:
    """Answers /claim from a list of jobs, records every request."""

    def __init__(self, jobs=(), status=None):
        self.jobs = list(jobs)
        self.requests = []
        self.status = status  # force this status on every answer (e.g. 401)
        self.cancel = set()
        fake = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n)) if n else None
                fake.requests.append((self.path, body, dict(self.headers)))
                code, answer = fake.answer(self.path, body)
                raw = json.dumps(answer).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json" if code < 300 else "application/problem+json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.server = S(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, path, body):
        if self.status:
            return self.status, {"type": "urn:readpast:problem:unauthorized", "title": "Unauthorized",
                                 "status": self.status, "detail": "The API key was not accepted."}
        if path == "/claim":
            acks = [{"index": i, "id": a["id"], "status": 200} for i, a in enumerate(body.get("ack") or [])]
            take, self.jobs = self.jobs[:body["limit"]], self.jobs[body["limit"]:]
            if not take and body.get("waitSeconds"):
                time.sleep(0.05)
            answer = {"jobs": take}
            if acks:
                answer["acks"] = acks
            return 200, answer
        if path in ("/jobs/complete", "/jobs/release"):
            return 200, {"results": [{"index": i, "id": it["id"], "status": 200} for i, it in enumerate(body["items"])]}
        if path == "/jobs/heartbeat":
            return 200, {"results": [{"index": i, "id": it["id"], "status": 200, "cancelRequested": it["id"] in self.cancel}
                                     for i, it in enumerate(body["items"])]}
        if path == "/jobs":
            return 201, dict(body, id="1", status="PENDING")
        if path.endswith("/fail"):
            return 200, {"id": path.split("/")[2], "status": "DEAD"}
        return 404, {"status": 404, "detail": "no"}

    def paths(self, prefix):
        return [(p, b) for p, b, _ in self.requests if p.startswith(prefix)]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def job(i, type="t", payload=None, traceparent=None):
    return {"id": str(i), "queue": "q", "type": type, "payload": payload, "attempt": 1, "maxAttempts": 3,
            "leaseId": f"lease-{i}", "traceparent": traceparent, "tracestate": None}


def run_until(worker, cond, timeout=10):
    t = threading.Thread(target=worker.run, daemon=True)
    t.start()
    end = time.monotonic() + timeout
    while not cond() and time.monotonic() < end:
        time.sleep(0.01)
    worker.stop()
    t.join(timeout)
    return not t.is_alive()


class ProducerTest(unittest.TestCase):
    def test_job_fields(self):
        at = datetime.datetime(2030, 1, 1, tzinfo=datetime.timezone.utc)
        body = readpast.job("q", "t", {"a": 1}, priority=3, delay=datetime.timedelta(minutes=2), tags=("x",),
                            max_attempts=2, idempotency_key="k", unique_for=60, expires_at=at, group_key="g",
                            fairness_key="f", depends_on=["7", 8], on_parent_failure="run", traceparent="00-x")
        self.assertEqual(body, {"queue": "q", "type": "t", "payload": {"a": 1}, "priority": 3, "delaySeconds": 120,
                                "tags": ["x"], "maxAttempts": 2, "idempotencyKey": "k", "uniqueFor": 60,
                                "expiresAt": "2030-01-01T00:00:00+00:00", "groupKey": "g", "fairnessKey": "f",
                                "dependsOn": {"jobs": ["7", "8"]}, "onParentFailure": "run", "traceparent": "00-x"})
        with self.assertRaises(TypeError):
            readpast.job("q", "t", colour="red")

    def test_errors_are_typed(self):
        fake = FakeBroker(status=401)
        try:
            with self.assertRaises(readpast.AuthError) as e:
                readpast.Producer(fake.url, "rp_x").enqueue("q", "t")
            self.assertEqual(e.exception.status, 401)
            self.assertEqual(e.exception.type, "urn:readpast:problem:unauthorized")
        finally:
            fake.close()

    def test_retry_after(self):
        self.assertEqual(parse_retry_after("3"), 3.0)
        self.assertIsNone(parse_retry_after(None))
        self.assertGreater(parse_retry_after("Wed, 21 Oct 2099 07:28:00 GMT"), 0)


class WorkerTest(unittest.TestCase):
    def test_handles_acks_and_traceparent(self):
        fake = FakeBroker([job(i, traceparent="00-abc-def-01") for i in range(25)])
        seen = []
        w = readpast.Worker(fake.url, "k", queues=["q"], concurrency=5, wait_seconds=1, handle_signals=False)
        w.handle("t", lambda j: seen.append((j.id, j.traceparent)) or {"n": j.id})
        try:
            self.assertTrue(run_until(w, lambda: w.stats["completed"] == 25))
            self.assertEqual(len(seen), 25)
            self.assertTrue(all(tp == "00-abc-def-01" for _, tp in seen))
            claims = fake.paths("/claim")
            self.assertTrue(all(b["limit"] <= 5 for _, b in claims))
            self.assertEqual(claims[0][1]["types"], ["t"])
            acked = sum(len(b.get("ack") or []) for _, b in claims) + sum(len(b["items"]) for _, b in fake.paths("/jobs/complete"))
            self.assertEqual(acked, 25)
        finally:
            fake.close()

    def test_failure_records_class_and_message(self):
        class Oops(readpast.JobError):
            pass
        fake = FakeBroker([job(1)])
        w = readpast.Worker(fake.url, "k", concurrency=1, wait_seconds=1, handle_signals=False)

        def handler(j):
            raise Oops("bad input", retryable=False, retry_after=4)
        w.handle("t", handler)
        try:
            self.assertTrue(run_until(w, lambda: w.stats["failed"] == 1))
            (_, body), = fake.paths("/jobs/1/fail")
            self.assertEqual(body["leaseId"], "lease-1")
            self.assertTrue(body["error"].endswith("Oops: bad input"), body["error"])
            self.assertEqual((body["retryable"], body["retryAfterSeconds"]), (False, 4))
        finally:
            fake.close()

    def test_cancel_requested_reaches_the_handler(self):
        fake = FakeBroker([job(1)])
        fake.cancel.add("1")
        told = []
        w = readpast.Worker(fake.url, "k", concurrency=1, wait_seconds=1, heartbeat_interval=0.1, handle_signals=False)

        def handler(j):
            j.cancelled.wait(5)
            told.append(j.cancel_reason)
            j.check()
        w.handle("t", handler)
        try:
            self.assertTrue(run_until(w, lambda: w.stats["failed"] == 1))
            self.assertEqual(told, [readpast.CANCEL_REQUESTED])
            (_, body), = fake.paths("/jobs/1/fail")
            self.assertFalse(body["retryable"])
        finally:
            fake.close()

    def test_stop_releases_unfinished_jobs(self):
        fake = FakeBroker([job(1)])
        started = threading.Event()
        w = readpast.Worker(fake.url, "k", concurrency=1, wait_seconds=1, shutdown_timeout=0.3, handle_signals=False)
        w.handle("t", lambda j: started.set() or time.sleep(3))
        try:
            self.assertTrue(run_until(w, started.is_set))
            (_, body), = fake.paths("/jobs/release")
            self.assertEqual(body["items"], [{"id": "1", "leaseId": "lease-1"}])
            self.assertEqual(w.stats["released"], 1)
        finally:
            fake.close()

    def test_auth_error_ends_run(self):
        fake = FakeBroker(status=401)
        w = readpast.Worker(fake.url, "bad", handle_signals=False)
        w.handle("t", lambda j: None)
        try:
            with self.assertRaises(readpast.AuthError):
                w.run()
        finally:
            fake.close()


if __name__ == "__main__":
    unittest.main()
