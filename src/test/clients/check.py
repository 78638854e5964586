"""Drives the Python client generated from openapi/ (scripts/generated-clients.sh): enqueue with
runAt, claim from every queue, complete, read back; queue settings and a key."""
import datetime
import os
import sys
import time

import openapi_client as rp


def check(ok, what):
    if not ok:
        raise RuntimeError("check failed: " + what)


def main():
    config = rp.Configuration(host=os.environ["READPAST_URL"], access_token=os.environ["READPAST_API_KEY"])
    with rp.ApiClient(config) as client:
        producers, workers = rp.ProducersApi(client), rp.WorkersApi(client)
        mine = ["gen-py-a", "gen-py-b"]
        now = datetime.datetime.now(datetime.timezone.utc)
        due, soon = now - datetime.timedelta(seconds=1), now + datetime.timedelta(seconds=1.5)
        a = producers.enqueue_job(rp.Enqueue(queue=mine[0], type="greet", payload={"n": 1}, run_at=due))
        b = producers.enqueue_job(rp.Enqueue(queue=mine[1], type="greet", run_at=soon, tags=["gen"]))
        check(a.id and b.id, "enqueued")
        settings = rp.QueuesApi(client).set_queue(mine[0], rp.Queue(max_workers=5))
        check(settings.max_workers == 5 and settings.paused is False, "queue settings set, the rest at defaults")
        keys = rp.KeysApi(client)
        check(keys.create_key(rp.CreateKey(name="gen-py-worker", roles=["worker"])).key.startswith("rp_"),
              "key made without queues")
        keys.delete_key("gen-py-worker")
        done = set()
        deadline = time.monotonic() + 20
        while len(done) < 2 and time.monotonic() < deadline:
            claimed = workers.claim_jobs(rp.Claim(worker_id="gen-py", limit=10, wait_seconds=2))  # every queue
            for j in claimed.jobs:
                # the worker's loop: a heartbeat while working, then complete
                beat = workers.heartbeat_job(j.id, rp.Heartbeat(lease_id=j.lease_id, lease_seconds=30))
                check(beat.lease_expires_at is not None, "heartbeat extends the lease")
                workers.complete_job(j.id, rp.Complete(lease_id=j.lease_id, result={"ok": True}))
                if j.queue in mine:
                    done.add(j.id)
        check(a.id in done and b.id in done, "both jobs claimed from every queue and completed")
        read = producers.get_job(b.id)
        check(read.status == "SUCCEEDED", "succeeded: %s" % read.status)
        check(abs((read.run_at - soon).total_seconds()) < 1, "runAt kept: %s" % read.run_at)
    print("PASS python")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # report one line, as the other checks do
        print("FAIL python: %s" % e)
        sys.exit(1)
