// pg-boss: N no-op jobs inserted in bulk with insert(), drained by work() with W local workers
// (localConcurrency; pg-boss's teamSize of old), each fetching batchSize jobs per round trip and,
// with burstWhenBatchFull, fetching again at once while batches come back full; between bursts it
// polls at the shortest interval pg-boss accepts (0.5 s). Completed jobs stay in pgboss.job with
// state 'completed', so the drain is over when that count reaches N.
//
// Tuning (environment): PGBOSS_BATCH_SIZE (50), PGBOSS_POLL_S (0.5, the minimum),
// PGBOSS_INSERT_BATCH (5000 jobs per insert call), PGBOSS_POOL (max(10, W+2)).
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import {
  awaitFinished, config, countQuery, env, installedVersion, now, printResult, resetDatabase, runMain, seconds,
} from './common.mjs';

const PEER = 'pg-boss';
const QUEUE = 'noop';

async function main() {
  const cfg = config(PEER, 'bench_pgboss');
  const batchSize = Number.parseInt(env('PGBOSS_BATCH_SIZE', '50'), 10);
  const pollSeconds = Number.parseFloat(env('PGBOSS_POLL_S', '0.5'));
  const insertBatch = Number.parseInt(env('PGBOSS_INSERT_BATCH', '5000'), 10);
  const max = Number.parseInt(env('PGBOSS_POOL', String(Math.max(10, cfg.workers + 2))), 10);
  const version = installedVersion('pg-boss');

  await resetDatabase(cfg);
  const boss = new PgBoss({ connectionString: cfg.dbUrl, max });
  boss.on('error', (e) => console.error(`[pg-boss error] ${e?.message ?? e}`));
  const probe = new pg.Client({ connectionString: cfg.dbUrl });
  await probe.connect();
  try {
    await boss.start(); // creates schema pgboss, before anything is timed
    await boss.createQueue(QUEUE);

    const e0 = now();
    for (let from = 0; from < cfg.jobs; from += insertBatch) {
      const jobs = [];
      for (let i = from; i < Math.min(cfg.jobs, from + insertBatch); i++) jobs.push({ data: { i } });
      await boss.insert(QUEUE, jobs);
    }
    const e1 = now();
    const inState = (state) =>
      countQuery(probe, 'select count(*) from pgboss.job where name = $1 and state = $2', [QUEUE, state]);
    const queued = await inState('created');
    if (queued !== cfg.jobs) throw new Error(`expected ${cfg.jobs} created jobs, found ${queued}`);

    let executed = 0;
    const d0 = now();
    await boss.work(QUEUE, {
      localConcurrency: cfg.workers,
      batchSize,
      pollingIntervalSeconds: pollSeconds,
      burstWhenBatchFull: true,
    }, async (jobs) => { executed += jobs.length; });
    const d1 = await awaitFinished(cfg, d0, () => inState('completed'));
    await boss.offWork(QUEUE);
    console.error(`[${PEER}] handler ran ${executed} times for ${cfg.jobs} jobs`);
    const settings = `localConcurrency=${cfg.workers} batchSize=${batchSize} burstWhenBatchFull=true` +
      ` pollingIntervalSeconds=${pollSeconds} max=${max} insert=${insertBatch}`;
    printResult(cfg, version, seconds(e0, e1), seconds(d0, d1), settings);
  } finally {
    await probe.end().catch(() => {});
    await boss.stop({ graceful: false }).catch(() => {});
  }
}

runMain(PEER, main);
