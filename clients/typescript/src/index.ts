/**
 * Readpast client: a Worker and a Producer for the Readpast HTTP job broker. Node 18+ (built-in
 * fetch), no runtime dependencies.
 *
 *     import { Worker } from '@readpast/client';
 *     const worker = new Worker({ url: 'http://localhost:8080', apiKey, queues: ['emails'], concurrency: 8 });
 *     worker.handle('send', async (job) => ({ sent: (job.payload as { to: string }).to }));
 *     await worker.run(); // until SIGTERM/SIGINT
 */
export {
  ReadpastError, InvalidRequestError, AuthError, ForbiddenError, NotFoundError, ConflictError, UnavailableError,
  ConnectionError, errorFor, type Problem,
} from './errors.js';
export { Http, parseRetryAfter, type HttpOptions } from './http.js';
export {
  Producer, type ProducerOptions, type NewJob, type JobView, type Enqueued, type ItemResult, type Batch, type CreateBatch,
} from './producer.js';
export {
  Worker, Job, JobError, errorText, LEASE_LOST, CANCEL_REQUESTED, SHUTDOWN, type CancelReason, type Handler,
  type WorkerOptions, type WorkerStats,
} from './worker.js';
