import { Http } from './http.js';
import { errorFor, type Problem, type ReadpastError } from './errors.js';

/** A job as the broker shows it (GET /jobs/{id}, enqueue and claim answers). */
export interface JobView {
  id: string;
  queue: string;
  type: string;
  payload: unknown;
  priority: number;
  status: 'PENDING' | 'WAITING' | 'LEASED' | 'PROCESSING' | 'SUCCEEDED' | 'DEAD' | 'CANCELLED';
  attempt: number;
  maxAttempts: number;
  tags: string[];
  runAt: string;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  workerId: string | null;
  /** Only in claim answers. */
  leaseId?: string;
  leaseExpiresAt: string | null;
  cancelRequested: boolean;
  lastError: string | null;
  errors?: { attempt: number; at: string; workerId: string | null; error: string }[];
  result: unknown;
  idempotencyKey: string | null;
  groupKey: string | null;
  fairnessKey: string | null;
  traceparent: string | null;
  tracestate: string | null;
  batchId: string | null;
  expiresAt: string | null;
  [more: string]: unknown;
}

/** A job to enqueue: POST /jobs, an item of enqueueMany, a job of a batch. */
export interface NewJob {
  queue: string;
  type: string;
  /** Any JSON value. */
  payload?: unknown;
  /** Higher is claimed first (0). */
  priority?: number;
  /** Due this many seconds from now. */
  delaySeconds?: number;
  /** Or due at this time. */
  runAt?: Date | string;
  tags?: string[];
  maxAttempts?: number;
  /** While a live job holds this key, enqueueing again returns that job (created: false). */
  idempotencyKey?: string;
  /** Seconds during which the same job answers with the first one. */
  uniqueFor?: number;
  /** Never start after this time. */
  expiresAt?: Date | string;
  /** Ordered group: one at a time, in enqueue order. */
  groupKey?: string;
  /** A tenant: fair queues serve keys in turn. */
  fairnessKey?: string;
  /** WAITING until these parents have settled. */
  dependsOn?: { jobs?: string[]; batches?: string[] };
  onParentFailure?: 'cancel' | 'run';
  webhookUrl?: string;
  /** W3C trace context of the producer: the handler gets it back. */
  traceparent?: string;
  tracestate?: string;
  /** The most it may run from its claim, in seconds: no lease runs past that. */
  timeoutSeconds?: number;
  /** Its own retry backoff, in place of its queue's: exponential, or the delays themselves. */
  retry?: { baseSeconds: number; factor?: number; capSeconds?: number; jitter?: boolean } | { delaysSeconds: number[] };
  /**
   * Debounce, with debounceSeconds: the first enqueue opens a window and the job runs at its end;
   * another with the same key inside it replaces that job's payload and priority (created: false).
   * Single enqueues only, without idempotencyKey, uniqueFor, groupKey, dependsOn, runAt or delaySeconds.
   */
  debounceKey?: string;
  /** The debounce window, in seconds (1-86400). */
  debounceSeconds?: number;
}

export interface Enqueued {
  job: JobView;
  /** False when an idempotency key, uniqueFor window or debounce window matched an existing job. */
  created: boolean;
}

export interface ItemResult {
  index: number;
  /** 201 created, 200 matched an existing job, else refused (see error). */
  status: number;
  id?: string;
  job?: JobView;
  error?: ReadpastError;
}

export interface Batch {
  id: string;
  state: string;
  total: number;
  succeeded: number;
  dead: number;
  cancelled: number;
  [more: string]: unknown;
}

export interface CreateBatch {
  jobs?: NewJob[];
  /** Enqueued once when the batch fires. */
  callback?: { queue: string; type: string; payload?: unknown; priority?: number; maxAttempts?: number };
  fireOn?: 'completion' | 'success' | 'death';
  open?: boolean;
  webhookUrl?: string;
}

export interface ProducerOptions {
  url: string;
  apiKey?: string;
  timeoutSeconds?: number;
}

function body(job: NewJob): Record<string, unknown> {
  const b: Record<string, unknown> = { ...job };
  for (const k of ['runAt', 'expiresAt'] as const) {
    const v = job[k];
    if (v instanceof Date) b[k] = v.toISOString();
  }
  for (const k of Object.keys(b)) if (b[k] === undefined) delete b[k];
  return b;
}

/**
 * Enqueues jobs. Every method rejects with a ReadpastError subclass (InvalidRequestError,
 * AuthError, ForbiddenError, NotFoundError, ConflictError, UnavailableError, ConnectionError)
 * when the broker refuses the whole request.
 */
export class Producer {
  readonly http: Http;

  constructor(opts: ProducerOptions) {
    this.http = new Http(opts);
  }

  /** Enqueues one job (POST /jobs). */
  async enqueue(job: NewJob): Promise<Enqueued> {
    const r = await this.http.request<JobView>('POST', '/jobs', body(job));
    return { job: r.body, created: r.status === 201 };
  }

  /**
   * Enqueues many jobs, 1000 per POST /jobs/batch, each on its own: one ItemResult per job, in
   * order. traceparent/tracestate apply to the jobs that carry none; minimal leaves the jobs out.
   */
  async enqueueMany(jobs: NewJob[], opts: { traceparent?: string; tracestate?: string; minimal?: boolean } = {}): Promise<ItemResult[]> {
    const out: ItemResult[] = [];
    for (let start = 0; start < jobs.length; start += 1000) {
      const chunk = jobs.slice(start, start + 1000).map((j) => body(opts.traceparent && !j.traceparent
        ? { ...j, traceparent: opts.traceparent, tracestate: opts.tracestate } : j));
      const r = await this.http.request<{ results: { index: number; id?: string; status: number; job?: JobView; error?: Problem }[] }>(
        'POST', '/jobs/batch', { jobs: chunk }, { headers: opts.minimal ? { Prefer: 'return=minimal' } : undefined });
      for (const it of r.body.results) {
        out.push({ index: start + it.index, status: it.status, id: it.id, job: it.job,
          error: it.error ? errorFor(it.status, it.error) : undefined });
      }
    }
    return out;
  }

  /** POST /batches: jobs that settle together, and a callback enqueued once when they fire. */
  async createBatch(batch: CreateBatch): Promise<Batch> {
    return (await this.http.request<Batch>('POST', '/batches', { ...batch, jobs: (batch.jobs ?? []).map(body) })).body;
  }

  /** More jobs for an open batch. */
  async addToBatch(batchId: string, jobs: NewJob[]): Promise<Batch> {
    return (await this.http.request<Batch>('POST', `/batches/${encodeURIComponent(batchId)}/jobs`, { jobs: jobs.map(body) })).body;
  }

  /** Closes an open batch: it fires once its jobs have settled. */
  async closeBatch(batchId: string): Promise<Batch> {
    return (await this.http.request<Batch>('POST', `/batches/${encodeURIComponent(batchId)}/close`)).body;
  }

  async getBatch(batchId: string): Promise<Batch> {
    return (await this.http.request<Batch>('GET', `/batches/${encodeURIComponent(batchId)}`)).body;
  }

  /** A job wherever it lives, with errors: one per failed attempt. */
  async getJob(id: string): Promise<JobView> {
    return (await this.http.request<JobView>('GET', `/jobs/${encodeURIComponent(id)}`)).body;
  }
}
