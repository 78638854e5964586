import { ConnectionError, errorFor, type Problem } from './errors.js';

/** Retry-After as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const s = Number(value.trim());
  if (Number.isFinite(s)) return Math.max(0, s);
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : Math.max(0, (t - Date.now()) / 1000);
}

export interface HttpOptions {
  url: string;
  apiKey?: string;
  /** Per-request timeout in seconds (30). */
  timeoutSeconds?: number;
}

/** Sends JSON requests to one broker with fetch; problem+json answers become ReadpastErrors. */
export class Http {
  readonly base: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;

  constructor(opts: HttpOptions) {
    this.base = opts.url.replace(/\/+$/, '');
    this.headers = { Accept: 'application/json', 'User-Agent': 'readpast-typescript' };
    if (opts.apiKey) this.headers.Authorization = `Bearer ${opts.apiKey}`;
    this.timeoutMs = (opts.timeoutSeconds ?? 30) * 1000;
  }

  async request<T = unknown>(method: string, path: string, body?: unknown,
    opts: { headers?: Record<string, string>; timeoutSeconds?: number } = {}): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { ...this.headers, ...opts.headers };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutSeconds ? opts.timeoutSeconds * 1000 : this.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code || cause?.message || (e as Error).message;
      throw new ConnectionError(0, `${method} ${path}: ${why}`, {}, undefined, undefined, { cause: e });
    }
    if (res.ok) return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    let problem: Problem | undefined;
    try {
      problem = JSON.parse(text) as Problem;
    } catch {
      problem = undefined;
    }
    throw errorFor(res.status, problem, text.trim().slice(0, 500), parseRetryAfter(res.headers.get('Retry-After')),
      res.headers.get('X-Request-Id') ?? undefined);
  }
}
