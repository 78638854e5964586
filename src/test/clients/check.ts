// Drives the typescript-fetch client generated from openapi/ (scripts/generated-clients.sh copies
// this file to target/clients/ts-check/, beside the client in target/clients/typescript/):
// enqueue with runAt, claim from every queue, complete, read back; queue settings and a key.
import { Configuration, ProducersApi, WorkersApi, QueuesApi, KeysApi } from '../typescript/src/index';

const url = process.env.READPAST_URL as string;
const key = process.env.READPAST_API_KEY as string;
const config = new Configuration({ basePath: url, accessToken: key });
const producers = new ProducersApi(config);
const workers = new WorkersApi(config);
const queues = new QueuesApi(config);
const keys = new KeysApi(config);

function check(ok: boolean, what: string): void {
  if (!ok) {
    throw new Error('check failed: ' + what);
  }
}

async function main(): Promise<void> {
  const mine = ['gen-ts-a', 'gen-ts-b'];
  const due = new Date(Date.now() - 1000);
  const soon = new Date(Date.now() + 1500);
  const a = await producers.enqueueJob({ enqueue: { queue: mine[0], type: 'greet', payload: { n: 1 }, runAt: due } });
  const b = await producers.enqueueJob({ enqueue: { queue: mine[1], type: 'greet', runAt: soon, tags: ['gen'] } });
  check(a.status === 'PENDING' && !!a.id && !!b.id, 'enqueued');
  const settings = await queues.setQueue({ name: mine[0], queue: { maxWorkers: 5 } });
  check(settings.maxWorkers === 5 && settings.paused === false, 'queue settings set, the rest left at defaults');
  const made = await keys.createKey({ createKey: { name: 'gen-ts-worker', roles: ['worker'] } });
  check((made.key ?? '').startsWith('rp_'), 'key made without queues');
  await keys.deleteKey({ name: 'gen-ts-worker' });

  const done = new Set<string>();
  const deadline = Date.now() + 20000;
  while (done.size < 2 && Date.now() < deadline) {
    // no 'queues': every queue
    const claimed = await workers.claimJobs({ claim: { workerId: 'gen-ts', limit: 10, waitSeconds: 2 } });
    for (const j of claimed.jobs ?? []) {
      // the worker's loop: a heartbeat while working, then complete
      const beat = await workers.heartbeatJob({ id: j.id as string, heartbeat: { leaseId: j.leaseId as string, leaseSeconds: 30 } });
      check(!!beat.leaseExpiresAt, 'heartbeat extends the lease');
      await workers.completeJob({ id: j.id as string, complete: { leaseId: j.leaseId as string, result: { ok: true } } });
      if (mine.includes(j.queue as string)) {
        done.add(j.id as string);
      }
    }
  }
  check(done.has(a.id as string) && done.has(b.id as string), 'both jobs claimed from every queue and completed');
  const read = await producers.getJob({ id: b.id as string });
  check(read.status === 'SUCCEEDED' && read.runAt !== undefined && read.runAt !== null
      && Math.abs((read.runAt as Date).getTime() - soon.getTime()) < 1000, 'runAt kept: ' + read.runAt);
  console.log('PASS typescript');
}

main().catch((e) => {
  console.error('FAIL typescript: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
