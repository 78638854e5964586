// Conformance agent for the TypeScript library: `node dist/agent.js <mode>`, settings from the
// environment; see clients/conformance/scenarios.json and the Python agent, which this one mirrors.
import { AuthError, InvalidRequestError, JobError, NotFoundError, Producer, ReadpastError, Worker, type Job } from '@readpast/client';

const URL = process.env.READPAST_URL as string;
const KEY = process.env.READPAST_API_KEY;
const QUEUE = process.env.RP_QUEUE || 'conformance';
const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);
const out = (...words: unknown[]) => process.stdout.write(words.join(' ') + '\n');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function makeWorker(key = KEY): Worker {
  return new Worker({
    url: URL, apiKey: key, queues: [QUEUE],
    concurrency: num('RP_CONCURRENCY', 4),
    leaseSeconds: num('RP_LEASE', 30),
    waitSeconds: num('RP_WAIT', 2),
    heartbeatSeconds: process.env.RP_HEARTBEAT ? Number(process.env.RP_HEARTBEAT) : undefined,
    shutdownTimeoutSeconds: num('RP_SHUTDOWN', 10),
    workerId: process.env.RP_WORKER_ID,
    backoffBaseSeconds: num('RP_BACKOFF_BASE', 0.5),
  });
}

/** The suite's always-failing handler throws this. */
class BoomError extends JobError {}

type P = { seconds?: number; ignoreCancel?: boolean; retryAfter?: number } | null;

function register(w: Worker): void {
  w.handle('noop', (job) => { out('ran', job.id, job.type, job.attempt); return { ok: true }; });
  w.handle('sleep', async (job: Job) => {
    out('ran', job.id, job.type, job.attempt);
    const p = job.payload as P;
    const seconds = p?.seconds ?? 1;
    const end = Date.now() + seconds * 1000;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, seconds * 1000);
      job.signal.addEventListener('abort', () => {
        out('told', job.id, job.cancelReason);
        if (!p?.ignoreCancel) { clearTimeout(t); resolve(); }
      }, { once: true });
    });
    if (job.signal.aborted && !p?.ignoreCancel) throw job.signal.reason;
    if (Date.now() < end) await sleep(end - Date.now());
    return { slept: seconds };
  });
  w.handle('fail', (job) => {
    out('ran', job.id, job.type, job.attempt);
    throw new BoomError('always fails', { retryAfterSeconds: (job.payload as P)?.retryAfter });
  });
  w.handle('trace', (job) => { out('trace', job.id, job.traceparent ?? '-'); return null; });
}

async function work(): Promise<number> {
  const w = makeWorker();
  register(w);
  out('ready');
  try {
    await w.run();
  } catch (e) {
    out('fatal', (e as Error).name, (e as ReadpastError).status);
    return 3;
  }
  const s = w.stats;
  out('stats', `completed=${s.completed}`, `failed=${s.failed}`, `released=${s.released}`, `lost=${s.lost}`);
  out('exit', 'ok');
  return 0;
}

async function produce(): Promise<number> {
  const p = new Producer({ url: URL, apiKey: KEY });
  const now = Date.now();
  let e = await p.enqueue({ queue: QUEUE, type: 'full', payload: { n: 1 }, priority: 7, tags: ['a', 'b'], maxAttempts: 4,
    delaySeconds: 3600, fairnessKey: 'tenant-1', groupKey: 'g-1', expiresAt: new Date(now + 7200_000),
    timeoutSeconds: 300, retry: { delaysSeconds: [30] }, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
  out('single', e.job.id, e.created);
  e = await p.enqueue({ queue: QUEUE, type: 'at', runAt: new Date(now + 3600_000) });
  out('runat', e.job.id);
  const idem = { queue: QUEUE, type: 'idem', payload: { k: 1 }, idempotencyKey: `${QUEUE}-key`, delaySeconds: 3600 };
  const a = await p.enqueue(idem);
  const b = await p.enqueue(idem);
  out('idem', a.job.id, a.created, b.job.id, b.created);
  const uniq = { queue: QUEUE, type: 'uniq', payload: { u: 1 }, uniqueFor: 600, delaySeconds: 3600 };
  const u = await p.enqueue(uniq);
  const v = await p.enqueue(uniq);
  out('unique', u.job.id, v.job.id, v.created);
  const d1 = await p.enqueue({ queue: QUEUE, type: 'deb', payload: { d: 1 }, debounceKey: `${QUEUE}-deb`, debounceSeconds: 3600 });
  const d2 = await p.enqueue({ queue: QUEUE, type: 'deb', payload: { d: 2 }, debounceKey: `${QUEUE}-deb`, debounceSeconds: 3600 });
  out('debounce', d1.job.id, d1.created, d2.job.id, d2.created);
  const items = await p.enqueueMany([
    { queue: QUEUE, type: 'm', payload: { i: 0 }, delaySeconds: 3600, priority: 2 },
    { queue: 'bad queue!', type: 'm' },
    { queue: QUEUE, type: 'm', payload: { i: 2 }, delaySeconds: 3600, fairnessKey: 'tenant-2' },
  ]);
  out('many', items[0].status, items[0].id, items[1].status, items[1].error?.name, items[2].status, items[2].id);
  const parent = await p.enqueue({ queue: QUEUE, type: 'parent', delaySeconds: 3600 });
  const child = await p.enqueue({ queue: QUEUE, type: 'child', dependsOn: { jobs: [parent.job.id] }, onParentFailure: 'run' });
  out('depends', parent.job.id, child.job.id, child.job.status);
  const batch = await p.createBatch({
    jobs: [{ queue: QUEUE, type: 'in-batch', payload: { i: 1 }, delaySeconds: 3600 },
      { queue: QUEUE, type: 'in-batch', payload: { i: 2 }, delaySeconds: 3600 }],
    callback: { queue: QUEUE, type: 'callback', payload: { album: 7 } }, fireOn: 'success' });
  out('batch', batch.id, batch.total);
  try {
    await p.enqueue({ queue: 'bad queue!', type: 'x' });
    out('invalid', 'none', 0);
  } catch (err) {
    if (!(err instanceof InvalidRequestError)) throw err;
    out('invalid', err.name, err.status, err.type);
  }
  try {
    await p.getJob('999999999');
    out('notfound', 'none', 0);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    out('notfound', err.name, err.status);
  }
  out('exit', 'ok');
  return 0;
}

async function trace(): Promise<number> {
  const p = new Producer({ url: URL, apiKey: KEY });
  const t1 = process.env.RP_TRACEPARENT as string;
  const t2 = process.env.RP_TRACEPARENT2 as string;
  const e = await p.enqueue({ queue: QUEUE, type: 'trace', payload: { n: 1 }, traceparent: t1 });
  out('enqueued', e.job.id, t1);
  for (const r of await p.enqueueMany([{ queue: QUEUE, type: 'trace', payload: { n: 2 } }, { queue: QUEUE, type: 'trace', payload: { n: 3 } }], { traceparent: t2 })) {
    out('enqueued', r.id, t2);
  }
  const w = makeWorker();
  let seen = 0;
  w.handle('trace', (job) => {
    out('trace', job.id, job.traceparent ?? '-');
    if (++seen >= 3) w.stop();
    return null;
  });
  await w.run();
  out('exit', 'ok');
  return 0;
}

async function auth(): Promise<number> {
  const w = makeWorker(`rp_wrong_${process.pid}`);
  w.handle('noop', () => null);
  try {
    await w.run();
    out('worker-auth', 'none', 0);
  } catch (e) {
    out('worker-auth', e instanceof AuthError ? e.name : `wrong:${(e as Error).name}`, (e as ReadpastError).status);
  }
  try {
    await new Producer({ url: URL, apiKey: 'rp_wrong' }).enqueue({ queue: QUEUE, type: 'noop' });
    out('producer-auth', 'none', 0);
  } catch (e) {
    out('producer-auth', e instanceof AuthError ? e.name : `wrong:${(e as Error).name}`, (e as ReadpastError).status);
  }
  out('exit', 'ok');
  return 0;
}

/** Drains RP_BENCH_N no-op jobs (after an untimed round of RP_BENCH_WARMUP) with RP_BENCH_WORKERS workers of RP_CONCURRENCY slots. */
async function bench(): Promise<number> {
  const n = num('RP_BENCH_N', 10000);
  const warm = num('RP_BENCH_WARMUP', 5 * n);
  const count = num('RP_BENCH_WORKERS', 4);
  const conc = num('RP_CONCURRENCY', 500);
  const quiet = { info() {}, warn() {}, error: console.error };
  const producer = new Producer({ url: URL, apiKey: KEY });
  const drain = async (queue: string, jobs: number): Promise<[number, number, number]> => {
    for (let start = 0; start < jobs; start += 1000) {
      await producer.enqueueMany(Array.from({ length: Math.min(1000, jobs - start) }, () => ({ queue, type: 'noop' })), { minimal: true });
    }
    const workers = Array.from({ length: count }, (_, i) => new Worker({
      url: URL, apiKey: KEY, queues: [queue], concurrency: conc, leaseSeconds: 60, waitSeconds: 1,
      handleSignals: false, logger: quiet, workerId: `bench-typescript-${process.pid}-${i}`,
    }).handle('noop', () => undefined));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const runs = workers.map((w) => w.run());
    const done = () => workers.reduce((s, w) => s + w.stats.completed, 0);
    while (done() < jobs) await sleep(2);
    const seconds = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    workers.forEach((w) => w.stop());
    await Promise.all(runs);
    return [done(), seconds, (c.user + c.system) / 1e6];
  };
  if (warm > 0) await drain(`${QUEUE}-warm`, warm);
  const [done, seconds, cpu] = await drain(QUEUE, n);
  out('RESULT', 'client-drain', 'lang=typescript', `jobs=${done}`, `workers=${count}`, `concurrency=${conc}`,
    `seconds=${seconds.toFixed(3)}`, `jobs_per_s=${(done / seconds).toFixed(1)}`, `cpu_s=${cpu.toFixed(2)}`,
    `cpu_s_per_1k=${(cpu / done * 1000).toFixed(4)}`);
  return 0;
}

const modes: Record<string, () => Promise<number>> = { work, produce, trace, auth, bench };
const mode = process.argv[2] ?? 'work';
modes[mode]().then((code) => process.exit(code), (e) => { console.error(e); process.exit(4); });
