// graphile-worker: N jobs of a no-op task added in bulk with WorkerUtils.addJobs (the add_jobs
// SQL function), drained by one worker pool (run()) with concurrency W and the batching options
// its Performance page uses for throughput: a local queue (jobs fetched and locked in batches)
// and batched completion (completeJobBatchDelay). A completed job's row is deleted, so the drain
// is over when graphile_worker._private_jobs is empty.
//
// Tuning (environment): GRAPHILE_LOCAL_QUEUE (500), GRAPHILE_COMPLETE_BATCH_DELAY (0),
// GRAPHILE_POLL_MS (2000, the default: only used for future-dated jobs and retries, new jobs
// arrive by LISTEN/NOTIFY and the local queue refetches on demand), GRAPHILE_ADD_BATCH (2000 jobs
// per addJobs call), GRAPHILE_POOL (max(10, W+2) as the maxPoolSize docs advise).
import pg from 'pg';
import { Logger, makeWorkerUtils, run } from 'graphile-worker';
import {
  awaitFinished, config, countQuery, env, installedVersion, now, printResult, resetDatabase, runMain, seconds,
} from './common.mjs';

const PEER = 'graphile-worker';

// Only warnings and errors: the default logger writes a line per job.
const logger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') console.error(`[graphile-worker ${level}] ${message}`);
});

async function main() {
  const cfg = config(PEER, 'bench_graphile');
  const localQueueSize = Number.parseInt(env('GRAPHILE_LOCAL_QUEUE', '500'), 10);
  const completeBatchDelay = Number.parseInt(env('GRAPHILE_COMPLETE_BATCH_DELAY', '0'), 10);
  const pollInterval = Number.parseInt(env('GRAPHILE_POLL_MS', '2000'), 10);
  const addBatch = Number.parseInt(env('GRAPHILE_ADD_BATCH', '2000'), 10);
  const maxPoolSize = Number.parseInt(env('GRAPHILE_POOL', String(Math.max(10, cfg.workers + 2))), 10);
  const version = installedVersion('graphile-worker');

  await resetDatabase(cfg);
  const utils = await makeWorkerUtils({ connectionString: cfg.dbUrl, logger });
  const probe = new pg.Client({ connectionString: cfg.dbUrl });
  await probe.connect();
  try {
    await utils.migrate(); // schema graphile_worker, before anything is timed

    const e0 = now();
    for (let from = 0; from < cfg.jobs; from += addBatch) {
      const specs = [];
      for (let i = from; i < Math.min(cfg.jobs, from + addBatch); i++) {
        specs.push({ identifier: 'noop', payload: { i } });
      }
      await utils.addJobs(specs);
    }
    const e1 = now();
    const remaining = () => countQuery(probe, 'select count(*) from graphile_worker._private_jobs');
    const queued = await remaining();
    if (queued !== cfg.jobs) throw new Error(`expected ${cfg.jobs} queued jobs, found ${queued}`);

    let executed = 0;
    const d0 = now();
    const runner = await run({
      connectionString: cfg.dbUrl,
      concurrency: cfg.workers,
      maxPoolSize,
      pollInterval,
      noHandleSignals: true,
      logger,
      taskList: { noop: async () => { executed++; } },
      preset: {
        worker: {
          localQueue: { size: localQueueSize },
          completeJobBatchDelay: completeBatchDelay,
          failJobBatchDelay: completeBatchDelay,
        },
      },
    });
    const d1 = await awaitFinished(cfg, d0, async () => cfg.jobs - (await remaining()));
    await runner.stop();
    console.error(`[${PEER}] handler ran ${executed} times for ${cfg.jobs} jobs`);
    const settings = `concurrency=${cfg.workers} maxPoolSize=${maxPoolSize} localQueue.size=${localQueueSize}` +
      ` completeJobBatchDelay=${completeBatchDelay} failJobBatchDelay=${completeBatchDelay}` +
      ` pollInterval=${pollInterval}ms addJobs=${addBatch}`;
    printResult(cfg, version, seconds(e0, e1), seconds(d0, d1), settings);
  } finally {
    await probe.end().catch(() => {});
    await utils.release().catch(() => {});
  }
}

runMain(PEER, main);
