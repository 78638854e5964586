#!/usr/bin/env node
// Readpast example worker: Node.js 20+, built-in fetch only (no npm packages).
//
// Claims batches of jobs, runs a handler for each while a background timer keeps the leases
// alive, and fails each failed job at once; successes are acknowledged with the next claim
// ("ack": one request completes the batch and leases the next). On Ctrl-C / SIGTERM it stops
// claiming, acknowledges what it finished, gives back (releases) every job it still holds, and
// exits 0.
//
// Configuration (environment):
//   READPAST_URL            broker base URL (default http://localhost:8080)
//   READPAST_API_KEY        sent as "Authorization: Bearer <key>" when set
//   READPAST_QUEUES         comma-separated queue names (default: every queue)
//   READPAST_WORKER_ID      default node-<pid>
//   READPAST_BATCH          jobs per claim (default 10)
//   READPAST_LEASE_SECONDS  lease length (default 30); heartbeats every third of it
//   READPAST_EXIT_WHEN_IDLE exit 0 after this many seconds without jobs (unset: run forever)
//
// Stdout gets one line per job: "completed <id> <type>", "failed <id> <type>",
// "released <id> <type>" or "lost <id> <type>". Diagnostics go to stderr. When the broker refuses
// the key (401) or its role or queues (403), it prints the broker's reason and exits 1.

import { setTimeout as sleep } from 'node:timers/promises';

const env = (name, dflt) => (process.env[name] ?? '').trim() || dflt;

const URL_BASE = env('READPAST_URL', 'http://localhost:8080').replace(/\/+$/, '');
const API_KEY = env('READPAST_API_KEY');
const QUEUES = env('READPAST_QUEUES', '').split(',').map((q) => q.trim()).filter(Boolean);
const WORKER_ID = env('READPAST_WORKER_ID', `node-${process.pid}`);
const BATCH = Number(env('READPAST_BATCH', '10'));
const LEASE_SECONDS = Number(env('READPAST_LEASE_SECONDS', '30'));
const EXIT_WHEN_IDLE = env('READPAST_EXIT_WHEN_IDLE') ? Number(env('READPAST_EXIT_WHEN_IDLE')) : null;

const shutdown = new AbortController(); // aborted by Ctrl-C / SIGTERM
const held = new Map(); // job id -> { job, lost: AbortController } for jobs not yet finished

const log = (line) => console.log(line);
const warn = (line) => console.error(`[${WORKER_ID}] ${line}`);

// ---- HTTP ------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, detail) {
    super(`HTTP ${status}: ${detail}`);
    this.status = status;
  }
}

/** Sends one JSON request and returns the decoded JSON answer (null for an empty body). */
async function call(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (API_KEY) headers.Authorization = `Bearer ${API_KEY}`;
  const res = await fetch(URL_BASE + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok) {
    let detail = text;
    try {
      const problem = JSON.parse(text);
      detail = problem.detail || problem.title || text;
    } catch { /* not JSON: keep the raw text */ }
    throw new ApiError(res.status, detail);
  }
  return text ? JSON.parse(text) : null;
}

// ---- Job handlers ----------------------------------------------------------------------

/** Thrown by a handler to fail a job; retryable=false sends it straight to DEAD. */
class JobFailed extends Error {
  constructor(message, retryable = true) {
    super(message);
    this.retryable = retryable;
  }
}

/**
 * Does the work for one job and returns its result (any JSON value). `signal` aborts on
 * shutdown or when the lease is lost; long-running work should honour it. `trace` is the W3C
 * trace context the producer sent with the job ({ traceparent, tracestate }, null members when it
 * sent none): hand it to your tracing SDK to continue the producer's trace.
 */
async function handle(job, signal, trace) {
  const payload = job.payload;
  switch (job.type) {
    case 'echo':
      return { echo: payload };
    case 'fail':
      throw new JobFailed('this job asked to fail', false);
    case 'sleep': {
      const seconds = payload && typeof payload === 'object' && payload.seconds != null ? payload.seconds : 1;
      await sleep(Number(seconds) * 1000, undefined, { signal }); // rejects with AbortError
      return { slept: seconds };
    }
    default:
      return { ok: true };
  }
}

// ---- Lease bookkeeping -----------------------------------------------------------------

/** Completes, fails or releases a held job and logs `<word> <id> <type>`. */
async function finish(job, action, body, word) {
  if (!held.delete(job.id)) { // the heartbeat timer already saw the lease go
    log(`lost ${job.id} ${job.type}`);
    return;
  }
  try {
    await call('POST', `/jobs/${job.id}/${action}`, { leaseId: job.leaseId, ...body });
    log(`${word} ${job.id} ${job.type}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) log(`lost ${job.id} ${job.type}`);
    else warn(`${action} ${job.id} failed: ${e.message}`);
  }
}

/**
 * Extends the lease of every held job, in one POST /jobs/heartbeat per 1000 jobs (the broker
 * answers each item on its own); runs every leaseSeconds/3.
 */
async function heartbeatAll() {
  const entries = [...held];
  for (let start = 0; start < entries.length; start += 1000) {
    const chunk = entries.slice(start, start + 1000);
    let results;
    try {
      ({ results } = await call('POST', '/jobs/heartbeat', {
        items: chunk.map(([id, entry]) => ({ id, leaseId: entry.job.leaseId, leaseSeconds: LEASE_SECONDS })),
      }));
    } catch (e) {
      warn(`heartbeat of ${chunk.length} jobs failed: ${e.message}`);
      continue;
    }
    chunk.forEach(([id, entry], k) => {
      const answer = results[k];
      if (answer.status === 200) return;
      if (answer.status !== 404 && answer.status !== 409) {
        warn(`heartbeat ${id} failed: ${JSON.stringify(answer.error)}`);
      } else if (held.get(id) === entry) { // lost after we finished the job ourselves is not news
        held.delete(id);
        entry.lost.abort();
        if (entry.ack) log(`lost ${id} ${entry.job.type}`); // done, but the lease went before the ack
        else warn(`lease lost for job ${id}; stopping work on it`);
      }
    });
  }
}

/** Gives held jobs back unworked (no attempt spent), in one POST /jobs/release per 1000. */
async function releaseAll(jobs) {
  const mine = jobs.filter((job) => held.delete(job.id) || log(`lost ${job.id} ${job.type}`)); // lost: the heartbeat saw it go
  for (let start = 0; start < mine.length; start += 1000) {
    const chunk = mine.slice(start, start + 1000);
    let results;
    try {
      ({ results } = await call('POST', '/jobs/release', { items: chunk.map((job) => ({ id: job.id, leaseId: job.leaseId })) }));
    } catch (e) {
      warn(`release of ${chunk.length} jobs failed: ${e.message}`);
      continue;
    }
    chunk.forEach((job, k) => {
      const { status, error } = results[k];
      if (status === 200) log(`released ${job.id} ${job.type}`);
      else if (status === 404 || status === 409) log(`lost ${job.id} ${job.type}`);
      else warn(`release ${job.id} failed: ${JSON.stringify(error)}`);
    });
  }
}

async function processJob(job) {
  const entry = held.get(job.id);
  if (!entry) return log(`lost ${job.id} ${job.type}`);
  let result;
  try {
    result = await handle(job, AbortSignal.any([shutdown.signal, entry.lost.signal]),
      { traceparent: job.traceparent ?? null, tracestate: job.tracestate ?? null });
  } catch (e) {
    if (e.name === 'AbortError') {
      if (shutdown.signal.aborted) return finish(job, 'release', {}, 'released'); // give it back unworked
      return log(`lost ${job.id} ${job.type}`);
    }
    if (e instanceof JobFailed) return finish(job, 'fail', { error: e.message, retryable: e.retryable }, 'failed');
    return finish(job, 'fail', { error: String(e), retryable: true }, 'failed'); // a handler bug: retry later
  }
  if (held.get(job.id) !== entry) return log(`lost ${job.id} ${job.type}`);
  entry.ack = { id: job.id, leaseId: job.leaseId, result }; // held (and heartbeated) until the next claim acks it
}

const unknownWarned = new Set(); // queue names the broker said do not exist, already reported

/** Logs the broker's answer for each acknowledged job and forgets the job. */
function acknowledged(done, answers) {
  done.forEach((entry, i) => {
    held.delete(entry.job.id);
    const status = answers[i]?.status;
    if (status === 200) log(`completed ${entry.job.id} ${entry.job.type}`);
    else if (status === 404 || status === 409) log(`lost ${entry.job.id} ${entry.job.type}`);
    else warn(`complete ${entry.job.id} failed: ${JSON.stringify(answers[i]?.error)}`);
  });
}

/** Acknowledges the finished jobs and claims the next batch, in one request. */
async function claim() {
  const done = [...held.values()].filter((entry) => entry.ack);
  const body = { workerId: WORKER_ID, limit: BATCH, leaseSeconds: LEASE_SECONDS };
  if (QUEUES.length) body.queues = QUEUES;
  if (done.length) body.ack = done.map((entry) => entry.ack);
  const answer = await call('POST', '/claim', body);
  acknowledged(done, answer.acks ?? []);
  for (const queue of answer.unknownQueues ?? []) { // listed only in empty answers
    if (unknownWarned.has(queue)) continue;
    unknownWarned.add(queue);
    warn(`queue '${queue}' does not exist on the broker (nothing was ever enqueued there): check READPAST_QUEUES`);
  }
  return answer.jobs;
}

/** Sleeps, waking early on shutdown. */
async function pause(ms) {
  try {
    await sleep(ms, undefined, { signal: shutdown.signal });
  } catch { /* aborted: shutting down */ }
}

// ---- Main loop -------------------------------------------------------------------------

async function main() {
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      warn(`got ${sig}: finishing up`);
      shutdown.abort();
    });
  }
  let beating = false; // do not start a round while the previous one is still running
  const timer = setInterval(async () => {
    if (beating) return;
    beating = true;
    try { await heartbeatAll(); } finally { beating = false; }
  }, Math.max(LEASE_SECONDS / 3, 1) * 1000);
  warn(`worker ${WORKER_ID} polling ${URL_BASE} queues=${QUEUES.join(',') || 'all'}`);

  let lastJob = Date.now();
  let idleMs = 500;
  let status = 0;
  while (!shutdown.signal.aborted) {
    let jobs = [];
    try {
      jobs = await claim();
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.status === 403)) {
        // retrying cannot help: the key is wrong or lacks the worker role
        warn(`the broker refused this worker: ${e.message} (set READPAST_API_KEY to a key with the worker role)`);
        status = 1;
        break;
      }
      warn(`claim failed: ${e.message}`);
    }
    if (jobs.length === 0) {
      if (EXIT_WHEN_IDLE !== null && Date.now() - lastJob >= EXIT_WHEN_IDLE * 1000) {
        warn(`idle for ${EXIT_WHEN_IDLE}s: exiting`);
        break;
      }
      await pause(idleMs); // nothing to do: back off a little (0.5 s up to 2 s)
      idleMs = Math.min(idleMs * 1.5, 2000);
      continue;
    }
    idleMs = 500;
    for (const job of jobs) held.set(job.id, { job, lost: new AbortController() });
    for (const job of jobs) {
      if (shutdown.signal.aborted) break;
      await processJob(job);
    }
    lastJob = Date.now();
  }

  // Shutdown: acknowledge what is done, give back the rest without spending an attempt.
  const done = [...held.values()].filter((entry) => entry.ack);
  if (done.length) {
    try {
      acknowledged(done, (await call('POST', '/jobs/complete', { items: done.map((entry) => entry.ack) })).results);
    } catch (e) {
      warn(`complete failed: ${e.message}`);
    }
  }
  await releaseAll([...held.values()].filter((entry) => !entry.ack).map((entry) => entry.job));
  clearInterval(timer);
  process.exit(status);
}

main().catch((e) => {
  warn(`fatal: ${e.stack || e}`);
  process.exit(1);
});
