// Unit tests against a fake broker (node:http on loopback): node --test test/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { AuthError, JobError, Producer, Worker, SHUTDOWN, CANCEL_REQUESTED } from '../dist/index.js';

function fakeBroker(jobs, opts = {}) {
  const seen = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null;
      seen.push({ path: req.url, body });
      const send = (code, answer) => {
        res.writeHead(code, { 'Content-Type': code < 300 ? 'application/json' : 'application/problem+json' });
        res.end(JSON.stringify(answer));
      };
      if (opts.status) return send(opts.status, { type: 'urn:readpast:problem:unauthorized', status: opts.status, detail: 'The API key was not accepted.' });
      const items = (k) => (body?.[k] ?? []).map((it, index) => ({ index, id: it.id, status: 200, cancelRequested: (opts.cancel ?? []).includes(it.id) }));
      if (req.url === '/claim') return send(200, { jobs: jobs.splice(0, body.limit), acks: items('ack') });
      if (['/jobs/complete', '/jobs/release', '/jobs/heartbeat'].includes(req.url)) return send(200, { results: items('items') });
      if (req.url === '/jobs') return send(201, { ...body, id: '1', status: 'PENDING' });
      if (req.url.endsWith('/fail')) return send(200, { id: '1', status: 'DEAD' });
      send(404, { status: 404, detail: 'no' });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() })));
}

const job = (i) => ({ id: String(i), queue: 'q', type: 't', payload: { i }, attempt: 1, maxAttempts: 3, leaseId: `lease-${i}`, traceparent: '00-abc-def-01', tracestate: null });
const quiet = { info() {}, warn() {}, error() {} };
const until = async (cond) => { while (!cond()) await new Promise((r) => setTimeout(r, 5)); };

test('handles jobs, acks them, passes the traceparent', async () => {
  const fake = await fakeBroker(Array.from({ length: 25 }, (_, i) => job(i + 1)));
  const w = new Worker({ url: fake.url, apiKey: 'k', concurrency: 5, waitSeconds: 1, handleSignals: false, logger: quiet });
  const seen = [];
  w.handle('t', (j) => { seen.push(j.traceparent); return { i: j.payload.i }; });
  const run = w.run();
  await until(() => w.stats.completed === 25);
  w.stop();
  await run;
  assert.equal(seen.length, 25);
  assert.ok(seen.every((tp) => tp === '00-abc-def-01'));
  const claims = fake.seen.filter((r) => r.path === '/claim');
  assert.ok(claims.every((c) => c.body.limit <= 5));
  assert.deepEqual(claims[0].body.types, ['t']);
  fake.close();
});

test('a failure records the class and message, and the retry delay', async () => {
  class Oops extends JobError {}
  const fake = await fakeBroker([job(1)]);
  const w = new Worker({ url: fake.url, concurrency: 1, waitSeconds: 1, handleSignals: false, logger: quiet });
  w.handle('t', () => { throw new Oops('bad input', { retryable: false, retryAfterSeconds: 4 }); });
  const run = w.run();
  await until(() => w.stats.failed === 1);
  w.stop();
  await run;
  const fail = fake.seen.find((r) => r.path === '/jobs/1/fail').body;
  assert.deepEqual(fail, { leaseId: 'lease-1', error: 'Oops: bad input', retryable: false, retryAfterSeconds: 4 });
  fake.close();
});

test('cancel requested aborts the signal; stop releases what is unfinished', async () => {
  const fake = await fakeBroker([job(1), job(2)], { cancel: ['1'] });
  const w = new Worker({ url: fake.url, concurrency: 2, waitSeconds: 1, heartbeatSeconds: 0.1, shutdownTimeoutSeconds: 0.3, handleSignals: false, logger: quiet });
  const reasons = {};
  w.handle('t', (j) => new Promise((resolve, reject) => j.signal.addEventListener('abort', () => {
    reasons[j.id] = j.cancelReason;
    if (j.id === '1') reject(j.signal.reason);
  })));
  const run = w.run();
  await until(() => reasons['1']);
  w.stop();
  await run;
  assert.equal(reasons['1'], CANCEL_REQUESTED);
  assert.equal(reasons['2'], SHUTDOWN);
  assert.equal(fake.seen.find((r) => r.path === '/jobs/1/fail').body.retryable, false);
  assert.deepEqual(fake.seen.find((r) => r.path === '/jobs/release').body.items, [{ id: '2', leaseId: 'lease-2' }]);
  fake.close();
});

test('a wrong key rejects run() and enqueue() with AuthError', async () => {
  const fake = await fakeBroker([], { status: 401 });
  const w = new Worker({ url: fake.url, apiKey: 'bad', handleSignals: false, logger: quiet });
  w.handle('t', () => null);
  await assert.rejects(w.run(), (e) => e instanceof AuthError && e.status === 401 && e.type === 'urn:readpast:problem:unauthorized');
  await assert.rejects(new Producer({ url: fake.url, apiKey: 'bad' }).enqueue({ queue: 'q', type: 't' }), AuthError);
  fake.close();
});

test('dates become ISO-8601 text', async () => {
  const fake = await fakeBroker([]);
  await new Producer({ url: fake.url }).enqueue({ queue: 'q', type: 't', runAt: new Date(Date.UTC(2030, 0, 1)), dependsOn: { jobs: ['7'] } });
  assert.deepEqual(fake.seen[0].body, { queue: 'q', type: 't', runAt: '2030-01-01T00:00:00.000Z', dependsOn: { jobs: ['7'] } });
  fake.close();
});
