// What both Node peer harnesses share: parameters, resetting the peer's own database, the
// bounded wait for the drain, and the one RESULT line.
//
// Parameters, command line first, then environment, then default:
//   N        argv[2]  BENCH_N       20000
//   W        argv[3]  BENCH_W       16
//   server   argv[4]  BENCH_PG_URL  postgres://postgres@127.0.0.1:5432/postgres
//            (any existing database; the harness swaps in its own database name)
//   BENCH_DB_NAME     overrides the peer's database name
//   BENCH_TIMEOUT_S   bound on the drain, default 600
//   BENCH_PROBE_MS    how often the drain's progress is counted, default 50
import fs from 'node:fs';
import pg from 'pg';

export function env(name, dflt) {
  const v = process.env[name];
  return v === undefined || v.trim() === '' ? dflt : v.trim();
}

function param(i, envName, dflt) {
  const a = process.argv[i];
  return a !== undefined && a.trim() !== '' ? a.trim() : env(envName, dflt);
}

export function withDatabase(url, db) {
  const u = new URL(url);
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new Error(`not a postgres:// URL: ${url}`);
  }
  u.pathname = '/' + db;
  return u.toString();
}

export function config(peer, defaultDb) {
  const jobs = Number.parseInt(param(2, 'BENCH_N', '20000'), 10);
  const workers = Number.parseInt(param(3, 'BENCH_W', '16'), 10);
  const adminUrl = param(4, 'BENCH_PG_URL', 'postgres://postgres@127.0.0.1:5432/postgres');
  const dbName = env('BENCH_DB_NAME', defaultDb);
  const timeoutMs = Number.parseFloat(env('BENCH_TIMEOUT_S', '600')) * 1000;
  const probeMs = Number.parseInt(env('BENCH_PROBE_MS', '50'), 10);
  if (!(jobs >= 1) || !(workers >= 1)) throw new Error(`N and W must be >= 1 (got N=${jobs} W=${workers})`);
  if (!/^[a-z_][a-z0-9_]*$/.test(dbName)) throw new Error(`database name must be a plain lower-case identifier: ${dbName}`);
  return { peer, jobs, workers, adminUrl, dbName, dbUrl: withDatabase(adminUrl, dbName), timeoutMs, probeMs };
}

/** Drops and creates the peer's own database (never the one named in the URL). */
export async function resetDatabase(cfg) {
  const c = new pg.Client({ connectionString: cfg.adminUrl });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS ${cfg.dbName} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${cfg.dbName}`);
  } finally {
    await c.end();
  }
}

export const now = () => process.hrtime.bigint();
export const seconds = (from, to) => Number(to - from) / 1e9;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls finished() every BENCH_PROBE_MS until it reports at least N; returns the hrtime at which it first
 * did. Throws on timeout.
 */
export async function awaitFinished(cfg, start, finished) {
  const deadline = start + BigInt(Math.round(cfg.timeoutMs * 1e6));
  let nextReport = start + 5_000_000_000n;
  for (;;) {
    const done = await finished();
    const t = now();
    if (done >= cfg.jobs) return t;
    if (t > deadline) {
      throw new Error(`timeout: ${done} of ${cfg.jobs} jobs finished after ${seconds(start, t).toFixed(1)} s (BENCH_TIMEOUT_S=${cfg.timeoutMs / 1000})`);
    }
    if (t > nextReport) {
      console.error(`[${cfg.peer}] ${done}/${cfg.jobs} finished after ${seconds(start, t).toFixed(1)} s`);
      nextReport += 5_000_000_000n;
    }
    await sleep(cfg.probeMs);
  }
}

export async function countQuery(client, sql, params = []) {
  const r = await client.query(sql, params);
  return Number(r.rows[0].count);
}

/** Installed version of a package, from its own package.json under node_modules. */
export function installedVersion(pkg) {
  const p = new URL(`./node_modules/${pkg}/package.json`, import.meta.url);
  return JSON.parse(fs.readFileSync(p, 'utf8')).version;
}

export function printResult(cfg, version, enqueueS, drainS, settings) {
  const line = `RESULT peer=${cfg.peer} version=${version} jobs=${cfg.jobs} workers=${cfg.workers}` +
    ` enqueue_s=${enqueueS.toFixed(3)} drain_s=${drainS.toFixed(3)} jobs_per_s=${(cfg.jobs / drainS).toFixed(1)}` +
    ` settings="${settings.replaceAll('"', "'")}"`;
  process.stdout.write(line + '\n');
}

/** Runs main(); on any failure prints the reason and exits non-zero. Exits 0 on success. */
export function runMain(peer, main) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(`FAILED peer=${peer}: ${err?.stack ?? err}`);
      process.exit(1);
    },
  );
}
