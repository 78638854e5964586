/** A problem document (RFC 9457), as the broker answers errors. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
}

/**
 * A refused request (a problem+json answer) or, with status 0, a broker that could not be
 * reached. Subclasses by status: InvalidRequestError (400), AuthError (401), ForbiddenError
 * (403), NotFoundError (404), ConflictError (409), UnavailableError (5xx), ConnectionError (0).
 */
export class ReadpastError extends Error {
  readonly status: number;
  readonly type?: string;
  readonly title?: string;
  readonly detail: string;
  readonly instance?: string;
  /** Seconds, from Retry-After. */
  readonly retryAfter?: number;
  readonly requestId?: string;

  constructor(status: number, detail: string, problem: Problem = {}, retryAfter?: number, requestId?: string, options?: { cause?: unknown }) {
    super(status ? `HTTP ${status}: ${detail}` : detail, options);
    this.name = new.target.name;
    this.status = status;
    this.detail = detail;
    this.type = problem.type;
    this.title = problem.title;
    this.instance = problem.instance;
    this.retryAfter = retryAfter;
    this.requestId = requestId;
  }

  /** True when trying again later may help: no answer, 429 or 5xx. */
  get temporary(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/** 400: the body or a parameter was refused; the detail names the field. */
export class InvalidRequestError extends ReadpastError {}
/** 401: no API key, or one the broker does not know. */
export class AuthError extends ReadpastError {}
/** 403: the key lacks the role, or the queue is outside its scope. */
export class ForbiddenError extends ReadpastError {}
/** 404: no such job, queue or batch. */
export class NotFoundError extends ReadpastError {}
/** 409: the lease is not held, or the job's state does not allow the call. */
export class ConflictError extends ReadpastError {}
/** 503 (and other 5xx): the broker or its database is unavailable; see retryAfter. */
export class UnavailableError extends ReadpastError {}
/** No answer: the connection failed or timed out. */
export class ConnectionError extends ReadpastError {}

const BY_STATUS: Record<number, typeof ReadpastError> = {
  400: InvalidRequestError, 401: AuthError, 403: ForbiddenError, 404: NotFoundError, 409: ConflictError,
};

/** The error for a non-2xx answer (or a per-item error of a batch answer). */
export function errorFor(status: number, problem: Problem | undefined | null, raw = '', retryAfter?: number, requestId?: string): ReadpastError {
  const p = problem && typeof problem === 'object' ? problem : {};
  const detail = p.detail || p.title || raw || `HTTP ${status}`;
  const cls = BY_STATUS[status] ?? (status >= 500 ? UnavailableError : ReadpastError);
  return new cls(status, detail, p, retryAfter, requestId);
}
