import { hostname } from 'node:os';
import { Http } from './http.js';
import { errorFor, ReadpastError, type Problem } from './errors.js';
import type { JobView } from './producer.js';

/** Why a job's signal was aborted. */
export type CancelReason = 'lease-lost' | 'cancel-requested' | 'shutdown';
export const LEASE_LOST: CancelReason = 'lease-lost';
export const CANCEL_REQUESTED: CancelReason = 'cancel-requested';
export const SHUTDOWN: CancelReason = 'shutdown';

/**
 * Throw it from a handler to choose how the job fails: retryable false makes it DEAD at once;
 * retryAfterSeconds replaces the broker's exponential backoff. Any other error fails the job too
 * (retryable), recorded as "<name>: <message>".
 */
export class JobError extends Error {
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;

  constructor(message: string, opts: { retryable?: boolean; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = new.target.name;
    this.retryable = opts.retryable ?? true;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** A claimed job, as its handler sees it. */
export class Job {
  readonly id: string;
  readonly queue: string;
  readonly type: string;
  readonly payload: unknown;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly leaseId: string;
  /** The producer's W3C trace context (null when it sent none). */
  readonly traceparent: string | null;
  readonly tracestate: string | null;
  /** The whole job, as the claim returned it. */
  readonly data: JobView;
  /** Aborted when the handler should stop; signal.reason is a CancelReason. */
  readonly signal: AbortSignal;
  /** @internal */ readonly controller: AbortController;
  /** @internal */ state: 'running' | 'finishing' | 'done' | 'lost' | 'released' | 'acked' = 'running';
  /** @internal */ pendingProgress?: { percent?: number; message?: string };

  constructor(data: JobView) {
    this.data = data;
    this.id = data.id;
    this.queue = data.queue;
    this.type = data.type;
    this.payload = data.payload;
    this.attempt = data.attempt;
    this.maxAttempts = data.maxAttempts;
    this.leaseId = data.leaseId as string;
    this.traceparent = data.traceparent ?? null;
    this.tracestate = data.tracestate ?? null;
    this.controller = new AbortController();
    this.signal = this.controller.signal;
  }

  /** Why the job was cancelled, or undefined. */
  get cancelReason(): CancelReason | undefined {
    return this.signal.aborted ? (this.signal.reason as CancelReason) : undefined;
  }

  /** Progress to report with the next heartbeat. */
  progress(percent?: number, message?: string): void {
    this.pendingProgress = { percent, message };
  }

  /** @internal */
  cancel(reason: CancelReason): void {
    if (!this.signal.aborted) this.controller.abort(reason);
  }
}

export type Handler = (job: Job) => unknown | Promise<unknown>;

export interface WorkerOptions {
  url: string;
  apiKey?: string;
  /** Default: every queue the key may use. */
  queues?: string[];
  /** Handlers at once (10). */
  concurrency?: number;
  /** Lease of each claim and heartbeat (30). */
  leaseSeconds?: number;
  /** Long-poll of an empty claim, 0-30 (20); 0: poll each second. */
  waitSeconds?: number;
  /** Largest claim (concurrency, at most 1000). */
  maxBatch?: number;
  /** Heartbeat interval (a third of the lease). */
  heartbeatSeconds?: number;
  /** How long running handlers may finish after stop() (30). */
  shutdownTimeoutSeconds?: number;
  /** Default node-<host>-<pid>. */
  workerId?: string;
  /** Stop on SIGTERM/SIGINT (true). */
  handleSignals?: boolean;
  /** Backoff after a 503 or a connection error: first and longest (0.5 s, 30 s); Retry-After wins. */
  backoffBaseSeconds?: number;
  backoffCapSeconds?: number;
  /** Where diagnostics go (console). */
  logger?: Pick<Console, 'info' | 'warn' | 'error'>;
}

export interface WorkerStats {
  claimed: number;
  completed: number;
  failed: number;
  released: number;
  lost: number;
}

interface Ack { id: string; leaseId: string; result?: unknown }
interface ItemAnswer { id?: string; status: number; error?: Problem; cancelRequested?: boolean }

/** "<name>: <message>", as a handler's error is recorded (at most 10000 characters). */
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const name = err.name && err.name !== 'Error' ? err.name : (err.constructor?.name || 'Error');
    return (err.message ? `${name}: ${err.message}` : name).slice(0, 10000);
  }
  return `${typeof err}: ${String(err)}`.slice(0, 10000);
}

/** Resolves waiters on notify(), or after their timeout. */
class Wake {
  private waiters: (() => void)[] = [];
  wait(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => { if (timer) clearTimeout(timer); resolve(); };
      this.waiters.push(done);
      if (ms !== undefined) timer = setTimeout(() => { this.waiters = this.waiters.filter((w) => w !== done); resolve(); }, ms);
    });
  }
  notify(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs handlers by job type: worker.handle('send', async (job) => result), then
 * await worker.run(), which resolves after SIGTERM/SIGINT or stop(): no more claims, running
 * handlers get shutdownTimeoutSeconds to finish, finished jobs are acknowledged, the rest
 * released. It rejects with AuthError/ForbiddenError (or another ReadpastError) when the broker
 * refuses the claims for good. A handler that ignores job.signal may keep the process alive
 * after run() resolves: exit explicitly then.
 */
export class Worker {
  readonly http: Http;
  readonly workerId: string;
  readonly stats: WorkerStats = { claimed: 0, completed: 0, failed: 0, released: 0, lost: 0 };
  private readonly o: Required<Omit<WorkerOptions, 'apiKey' | 'queues' | 'logger' | 'url' | 'workerId'>>;
  private readonly queues?: string[];
  private readonly log: Pick<Console, 'info' | 'warn' | 'error'>;
  private readonly handlers = new Map<string, Handler>();
  private fallback?: Handler;
  private readonly held = new Map<string, Job>();
  private acks: Ack[] = [];
  private running = 0;
  private inPoll = false;
  private stopping = false;
  private stopAt = 0;
  private done = false;
  private readonly changed = new Wake(); // a slot freed, an ack came, stop
  private readonly stopWake = new Wake();
  private readonly doneWake = new Wake();
  private readonly unknownWarned = new Set<string>();

  constructor(opts: WorkerOptions) {
    const concurrency = opts.concurrency ?? 10;
    if (concurrency < 1) throw new RangeError('concurrency must be at least 1');
    const lease = opts.leaseSeconds ?? 30;
    this.o = {
      concurrency,
      leaseSeconds: lease,
      waitSeconds: opts.waitSeconds ?? 20,
      maxBatch: Math.max(1, Math.min(1000, opts.maxBatch ?? concurrency)),
      heartbeatSeconds: opts.heartbeatSeconds ?? Math.max(lease / 3, 0.2),
      shutdownTimeoutSeconds: opts.shutdownTimeoutSeconds ?? 30,
      handleSignals: opts.handleSignals ?? true,
      backoffBaseSeconds: opts.backoffBaseSeconds ?? 0.5,
      backoffCapSeconds: opts.backoffCapSeconds ?? 30,
    };
    this.queues = opts.queues && opts.queues.length ? [...opts.queues] : undefined;
    this.workerId = opts.workerId || `node-${hostname()}-${process.pid}`;
    this.log = opts.logger ?? console;
    this.http = new Http({ url: opts.url, apiKey: opts.apiKey, timeoutSeconds: this.o.waitSeconds + 30 });
  }

  /** Registers the handler of a job type; type null handles every type without its own (claims then take every type). */
  handle(type: string | null, handler: Handler): this {
    if (type === null) this.fallback = handler;
    else this.handlers.set(type, handler);
    return this;
  }

  /** Asks run() to stop (idempotent). */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.stopAt = Date.now();
    this.changed.notify();
    this.stopWake.notify();
  }

  async run(): Promise<void> {
    if (this.handlers.size === 0 && !this.fallback) throw new Error('register a handler first: worker.handle(type, fn)');
    const onSignal = (sig: NodeJS.Signals) => {
      this.log.info(`readpast worker ${this.workerId}: ${sig}, stopping`);
      this.stop();
    };
    if (this.o.handleSignals) {
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    }
    const beat = this.heartbeatLoop();
    const flush = this.flushLoop();
    let fatal: unknown;
    try {
      await this.claimLoop();
    } catch (e) {
      fatal = e;
      this.stop();
    }
    try {
      await this.shutdown();
    } finally {
      this.done = true;
      this.changed.notify();
      this.stopWake.notify();
      this.doneWake.notify();
      await Promise.all([beat, flush]);
      if (this.o.handleSignals) {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      }
    }
    if (fatal !== undefined) throw fatal;
  }

  private backoffMs(attempt: number, retryAfter?: number): number {
    if (retryAfter !== undefined) return retryAfter * 1000 * (1 + 0.2 * Math.random());
    const d = Math.min(this.o.backoffCapSeconds, this.o.backoffBaseSeconds * 2 ** Math.min(attempt, 20)) * 1000;
    return d / 2 + (Math.random() * d) / 2;
  }

  private async pause(ms: number): Promise<void> {
    if (!this.stopping) await this.stopWake.wait(ms);
  }

  private async claimLoop(): Promise<void> {
    const types = this.fallback ? undefined : [...this.handlers.keys()].sort();
    const want = Math.min(this.o.concurrency, this.o.maxBatch);
    let failures = 0;
    while (!this.stopping) {
      if (this.running >= this.o.concurrency) {
        await this.changed.wait();
        continue;
      }
      if (this.o.concurrency - this.running < want) {
        const end = Date.now() + 2; // let a few more slots free up: fewer, larger claims
        while (this.o.concurrency - this.running < want && !this.stopping && Date.now() < end) {
          await this.changed.wait(Math.max(1, end - Date.now()));
        }
        if (this.stopping) break;
      }
      const limit = Math.min(this.o.concurrency - this.running, this.o.maxBatch);
      const acks = this.acks.splice(0, 1000);
      const wait = acks.length ? 0 : this.o.waitSeconds; // acks never wait in a long poll
      const body: Record<string, unknown> = { workerId: this.workerId, limit, leaseSeconds: this.o.leaseSeconds };
      if (wait) body.waitSeconds = wait;
      if (this.queues) body.queues = this.queues;
      if (types) body.types = types;
      if (acks.length) body.ack = acks;
      this.inPoll = wait > 0;
      if (this.inPoll && this.acks.length) this.changed.notify();
      let answer: { jobs: JobView[]; unknownQueues?: string[]; acks?: ItemAnswer[] };
      try {
        answer = (await this.http.request<typeof answer>('POST', '/claim', body, { timeoutSeconds: wait + 30 })).body;
      } catch (e) {
        this.inPoll = false;
        this.acks.unshift(...acks);
        if (!(e instanceof ReadpastError) || !e.temporary) {
          this.log.error(`readpast worker ${this.workerId}: the broker refused the claim: ${(e as Error).message}`);
          throw e;
        }
        const ms = this.backoffMs(failures, e.retryAfter);
        if (e.retryAfter === undefined) failures++; // Retry-After sets the pace itself
        this.log.warn(`readpast worker ${this.workerId}: claim failed (${e.message}); retrying in ${(ms / 1000).toFixed(1)}s`);
        await this.pause(ms);
        continue;
      }
      this.inPoll = false;
      failures = 0;
      if (acks.length) this.acked(acks, answer.acks ?? []);
      for (const q of answer.unknownQueues ?? []) {
        if (!this.unknownWarned.has(q)) {
          this.unknownWarned.add(q);
          this.log.warn(`readpast worker ${this.workerId}: queue '${q}' does not exist (nothing was ever enqueued there)`);
        }
      }
      const jobs = answer.jobs ?? [];
      if (!jobs.length) {
        if (!wait && !acks.length) await this.pause(1000); // no long poll: poll each second
        continue;
      }
      this.stats.claimed += jobs.length;
      const fresh = jobs.map((j) => new Job(j));
      if (this.stopping) {
        await this.release(fresh);
        break;
      }
      this.running += fresh.length;
      for (const job of fresh) {
        this.held.set(job.id, job);
        void this.execute(job);
      }
    }
  }

  private async execute(job: Job): Promise<void> {
    const handler = this.handlers.get(job.type) ?? this.fallback;
    let result: unknown;
    let error: unknown;
    let failed = false;
    try {
      if (!handler) throw new JobError(`no handler for job type '${job.type}'`, { retryable: false });
      result = await handler(job);
    } catch (e) {
      failed = true;
      error = e;
    }
    await this.finished(job, result, failed, error);
  }

  private async finished(job: Job, result: unknown, failed: boolean, error: unknown): Promise<void> {
    this.running--;
    this.changed.notify();
    if (job.state !== 'running') {
      if (job.state === 'lost') this.held.delete(job.id);
      return;
    }
    const reason = job.cancelReason;
    if (!failed && reason === undefined) {
      job.state = 'done';
      this.acks.push(result === undefined ? { id: job.id, leaseId: job.leaseId } : { id: job.id, leaseId: job.leaseId, result });
      return;
    }
    job.state = 'finishing';
    let body: Record<string, unknown>;
    if (reason === CANCEL_REQUESTED) { // failing it makes it CANCELLED
      const why = failed && !(error instanceof Error && error.name === 'AbortError') && error !== reason ? ` (${errorText(error)})` : '';
      body = { leaseId: job.leaseId, error: `cancelled on request${why}`, retryable: false };
    } else {
      body = { leaseId: job.leaseId, error: errorText(error), retryable: true };
      const e = error as { retryable?: unknown; retryAfterSeconds?: unknown } | null;
      if (e && typeof e === 'object') {
        if (e.retryable === false) body.retryable = false;
        if (typeof e.retryAfterSeconds === 'number') body.retryAfterSeconds = Math.round(e.retryAfterSeconds);
      }
    }
    await this.callWithRetries('POST', `/jobs/${encodeURIComponent(job.id)}/fail`, body);
    this.held.delete(job.id);
    this.stats.failed++;
  }

  private async callWithRetries(method: string, path: string, body: unknown): Promise<void> {
    for (let attempt = 0; attempt < 6; attempt++) {
      try {
        await this.http.request(method, path, body);
        return;
      } catch (e) {
        const err = e as ReadpastError;
        if (err.status === 404 || err.status === 409) {
          if (attempt === 0) this.log.warn(`readpast worker ${this.workerId}: ${path}: ${err.message} (lease lost)`);
          return; // a repeat whose first try took effect, or a lease that is gone
        }
        if (!(err instanceof ReadpastError) || !err.temporary || attempt === 5) {
          this.log.error(`readpast worker ${this.workerId}: ${method} ${path} failed: ${err.message}`);
          return;
        }
        await sleep(this.backoffMs(attempt, err.retryAfter));
      }
    }
  }

  private acked(items: Ack[], answers: ItemAnswer[]): void {
    items.forEach((item, i) => {
      const a = answers[i];
      const job = this.held.get(item.id);
      if (job && job.state === 'done') {
        job.state = 'acked';
        this.held.delete(item.id);
      }
      if (!a) return;
      if (a.status === 200) this.stats.completed++;
      else if (a.status === 404 || a.status === 409) {
        this.stats.lost++;
        this.log.warn(`readpast worker ${this.workerId}: job ${item.id} finished but its lease was lost`);
      } else this.log.error(`readpast worker ${this.workerId}: complete ${item.id} refused: ${errorFor(a.status, a.error).message}`);
    });
  }

  private async complete(items: Ack[]): Promise<boolean> {
    try {
      const r = await this.http.request<{ results: ItemAnswer[] }>('POST', '/jobs/complete', { items });
      this.acked(items, r.body.results ?? []);
      return true;
    } catch (e) {
      this.log.warn(`readpast worker ${this.workerId}: complete of ${items.length} jobs failed: ${(e as Error).message}`);
      this.acks.unshift(...items);
      return false;
    }
  }

  /** Completes finished jobs while the claim loop waits in a long poll. */
  private async flushLoop(): Promise<void> {
    let failures = 0;
    while (!this.done) {
      if (!(this.inPoll && this.acks.length)) {
        await this.changed.wait(200);
        continue;
      }
      await sleep(5); // a few more may come
      if (!this.inPoll || !this.acks.length || this.done) continue;
      if (await this.complete(this.acks.splice(0, 1000))) failures = 0;
      else await sleep(this.backoffMs(failures++));
    }
  }

  private async heartbeatLoop(): Promise<void> {
    let delay = this.o.heartbeatSeconds * 1000;
    for (;;) {
      await this.doneWake.wait(delay);
      if (this.done) return;
      delay = this.o.heartbeatSeconds * 1000;
      const jobs = [...this.held.values()].filter((j) => j.state === 'running' || j.state === 'finishing' || j.state === 'done');
      for (let start = 0; start < jobs.length; start += 1000) {
        const chunk = jobs.slice(start, start + 1000);
        const items = chunk.map((j) => {
          const it: Record<string, unknown> = { id: j.id, leaseId: j.leaseId, leaseSeconds: this.o.leaseSeconds };
          if (j.pendingProgress) {
            it.progress = j.pendingProgress;
            j.pendingProgress = undefined;
          }
          return it;
        });
        let results: ItemAnswer[];
        try {
          results = (await this.http.request<{ results: ItemAnswer[] }>('POST', '/jobs/heartbeat', { items })).body.results ?? [];
        } catch (e) {
          const err = e as ReadpastError;
          this.log.warn(`readpast worker ${this.workerId}: heartbeat failed: ${err.message}`);
          delay = Math.min(delay, Math.max(500, (err.retryAfter ?? 1) * 1000));
          continue;
        }
        chunk.forEach((j, i) => {
          const r = results[i];
          if (!r) return;
          if (r.status === 200 && r.cancelRequested && j.state === 'running' && !j.signal.aborted) {
            this.log.info(`readpast worker ${this.workerId}: job ${j.id}: cancel requested`);
            j.cancel(CANCEL_REQUESTED);
          } else if ((r.status === 404 || r.status === 409) && j.state === 'running') {
            j.state = 'lost';
            this.stats.lost++;
            this.log.warn(`readpast worker ${this.workerId}: job ${j.id}: lease lost`);
            j.cancel(LEASE_LOST);
          }
        });
      }
    }
  }

  private async release(jobs: Job[]): Promise<void> {
    for (let start = 0; start < jobs.length; start += 1000) {
      const items = jobs.slice(start, start + 1000).map((j) => ({ id: j.id, leaseId: j.leaseId }));
      for (let attempt = 0; attempt < 4; attempt++) {
        try {
          const r = await this.http.request<{ results: ItemAnswer[] }>('POST', '/jobs/release', { items });
          this.stats.released += (r.body.results ?? []).filter((x) => x.status === 200).length;
          break;
        } catch (e) {
          const err = e as ReadpastError;
          if (!(err instanceof ReadpastError) || !err.temporary || attempt === 3) {
            this.log.error(`readpast worker ${this.workerId}: release of ${items.length} jobs failed: ${err.message}`);
            break;
          }
          await sleep(this.backoffMs(attempt, err.retryAfter));
        }
      }
    }
  }

  private async shutdown(): Promise<void> {
    const deadline = this.stopAt + this.o.shutdownTimeoutSeconds * 1000;
    while (this.running > 0 && Date.now() < deadline) {
      await this.changed.wait(Math.max(1, deadline - Date.now()));
    }
    const leftovers = [...this.held.values()].filter((j) => j.state === 'running');
    for (const j of leftovers) {
      j.state = 'released';
      this.held.delete(j.id);
      j.cancel(SHUTDOWN);
    }
    const acks = this.acks.splice(0);
    for (let start = 0; start < acks.length; start += 1000) {
      for (let attempt = 0; attempt < 4; attempt++) {
        if (await this.complete(acks.slice(start, start + 1000))) break;
        this.acks = [];
        await sleep(this.backoffMs(attempt));
      }
    }
    if (leftovers.length) {
      this.log.warn(`readpast worker ${this.workerId}: releasing ${leftovers.length} unfinished jobs`);
      await this.release(leftovers);
    }
    this.log.info(`readpast worker ${this.workerId} stopped: ${JSON.stringify(this.stats)}`);
  }
}
