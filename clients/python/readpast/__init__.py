"""Readpast client: a worker and a producer for the Readpast HTTP job broker.

Standard library only (Python 3.9+)::

    import readpast

    worker = readpast.Worker("http://localhost:8080", api_key, queues=["emails"], concurrency=8)

    @worker.handler("send")
    def send(job):
        return {"sent": job.payload["to"]}

    worker.run()  # until SIGTERM/SIGINT
"""

from .errors import (AuthError, ConflictError, ConnectionFailed, ForbiddenError, InvalidRequestError,
                     NotFoundError, ReadpastError, UnavailableError)
from .producer import Enqueued, ItemResult, Producer, job
from .worker import (CANCEL_REQUESTED, LEASE_LOST, SHUTDOWN, Job, JobCancelled, JobError, Worker, error_text)

__version__ = "0.1.0"

__all__ = [
    "Worker", "Job", "JobError", "JobCancelled", "LEASE_LOST", "CANCEL_REQUESTED", "SHUTDOWN", "error_text",
    "Producer", "Enqueued", "ItemResult", "job",
    "ReadpastError", "InvalidRequestError", "AuthError", "ForbiddenError", "NotFoundError", "ConflictError",
    "UnavailableError", "ConnectionFailed",
]
