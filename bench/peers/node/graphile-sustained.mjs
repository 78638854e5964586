// graphile-worker in the sustained mode of bench/run: producers (WorkerUtils.addJobs, in calls of
// GRAPHILE_ADD_BATCH jobs) and one worker pool (run(), concurrency W, the local queue and batched
// completion of the drain harness) at once, for BENCH_SUSTAINED_WARMUP seconds untimed and then
// BENCH_SUSTAINED_SECONDS timed. The producers keep the backlog (added, not yet run) at about
// BENCH_BACKLOG jobs, so the pool never waits: the jobs run per second over the window are its
// sustained maximum. Every payload is about BENCH_PAYLOAD_BYTES of JSON and carries the time of
// its addJobs call ("t", microseconds of this process's monotonic clock), so the handler gives
// each job's enqueue-to-start latency. A job counts when its handler has run (its completion is
// then batched by graphile-worker; Readpast's driver counts a job when the broker confirmed its
// acknowledgement, a little later).
//
// Output: one line "RESULT sustained peer=graphile-worker ..." on stdout.
import { Logger, makeWorkerUtils, run } from 'graphile-worker';
import { config, env, installedVersion, resetDatabase, runMain } from './common.mjs';

const PEER = 'graphile-worker';

const logger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') console.error(`[graphile-worker ${level}] ${message}`);
});

const micros = () => Number(process.hrtime.bigint() / 1000n);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pct(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
}

async function main() {
  const cfg = config(PEER, 'bench_graphile');
  const seconds = Number.parseFloat(env('BENCH_SUSTAINED_SECONDS', '60'));
  const warmup = Number.parseFloat(env('BENCH_SUSTAINED_WARMUP', '10'));
  const payloadBytes = Number.parseInt(env('BENCH_PAYLOAD_BYTES', '1024'), 10);
  const backlog = Number.parseInt(env('BENCH_BACKLOG', '20000'), 10);
  const addBatch = Number.parseInt(env('GRAPHILE_ADD_BATCH', '200'), 10);
  const producers = Number.parseInt(env('BENCH_PRODUCERS', '2'), 10);
  const localQueueSize = Number.parseInt(env('GRAPHILE_LOCAL_QUEUE', '500'), 10);
  const completeBatchDelay = Number.parseInt(env('GRAPHILE_COMPLETE_BATCH_DELAY', '0'), 10);
  const maxPoolSize = Number.parseInt(env('GRAPHILE_POOL', String(Math.max(10, cfg.workers + 2 + producers))), 10);
  const version = installedVersion('graphile-worker');
  // {"t":<micros>,"pad":"xx..."} of payloadBytes with a 16-digit t
  const pad = 'x'.repeat(Math.max(0, payloadBytes - '{"t":1234567890123456,"pad":""}'.length));

  await resetDatabase(cfg);
  const utils = await makeWorkerUtils({ connectionString: cfg.dbUrl, logger });
  try {
    await utils.migrate();
    const t0 = micros();
    const winStart = t0 + warmup * 1e6;
    const winEnd = winStart + seconds * 1e6;
    let added = 0;
    let ran = 0;
    let addCalls = 0;
    const latencies = [];
    let producing = true;

    const runner = await run({
      connectionString: cfg.dbUrl,
      concurrency: cfg.workers,
      maxPoolSize,
      noHandleSignals: true,
      logger,
      taskList: {
        work: async (payload) => {
          const now = micros();
          ran++;
          if (payload.t >= winStart && payload.t < winEnd) latencies.push(now - payload.t);
        },
      },
      preset: {
        worker: {
          localQueue: { size: localQueueSize },
          completeJobBatchDelay: completeBatchDelay,
          failJobBatchDelay: completeBatchDelay,
        },
      },
    });

    const producer = async () => {
      while (producing) {
        if (added - ran >= backlog) {
          await sleep(1);
          continue;
        }
        const t = micros();
        const specs = [];
        for (let i = 0; i < addBatch; i++) specs.push({ identifier: 'work', payload: { t, pad } });
        added += addBatch; // counted before the call: the backlog bound holds with several producers
        await utils.addJobs(specs);
        addCalls++;
      }
    };
    const producing$ = Array.from({ length: producers }, producer);

    while (micros() < winStart) await sleep(20);
    const ran0 = ran;
    const backlog0 = added - ran;
    let bmin = backlog0;
    let bmax = backlog0;
    while (micros() < winEnd) {
      await sleep(100);
      const b = added - ran;
      bmin = Math.min(bmin, b);
      bmax = Math.max(bmax, b);
    }
    const ran1 = ran;
    const windowS = (micros() - winStart) / 1e6;
    const backlog1 = added - ran;
    producing = false;
    await Promise.all(producing$);
    await runner.stop();
    latencies.sort((a, b) => a - b);
    const settings = `concurrency=${cfg.workers} maxPoolSize=${maxPoolSize} localQueue.size=${localQueueSize}` +
      ` completeJobBatchDelay=${completeBatchDelay} addJobs=${addBatch} producers=${producers} backlog=${backlog}`;
    process.stdout.write(`RESULT sustained peer=${PEER} version=${version} workers=${cfg.workers}` +
      ` payload_bytes=${payloadBytes} seconds=${windowS.toFixed(1)} jobs=${ran1 - ran0}` +
      ` jobs_per_s=${((ran1 - ran0) / windowS).toFixed(1)} backlog_start=${backlog0} backlog_end=${backlog1}` +
      ` backlog_min=${bmin} backlog_max=${bmax} add_calls=${addCalls}` +
      ` p50_ms=${(pct(latencies, 50) / 1000).toFixed(2)} p99_ms=${(pct(latencies, 99) / 1000).toFixed(2)}` +
      ` max_ms=${(pct(latencies, 100) / 1000).toFixed(2)} settings="${settings}"\n`);
  } finally {
    await utils.release().catch(() => {});
  }
}

runMain(PEER, main);
