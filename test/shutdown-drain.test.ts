/**
 * The drain before a stop (src/composition/drain.ts), in process: a request held in flight keeps
 * the listener open, so what happens meanwhile is tested at exact moments, with no sleeps.
 */
import { Agent } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { answerTo, holdLogin, type Answer } from './helpers/held-request.ts';
import { startTestServer } from './helpers/server.ts';

const t = suite('drain before a stop');

const request = (url: string, path: string, agent: Agent | false = false): Promise<Answer | string> =>
  answerTo(`${url}${path}`, agent);

/** The drain's 503: `Retry-After` and `Connection: close`. */
function assertDrain503(answer: Answer | string, what: string): void {
  if (typeof answer === 'string') throw new Error(`${what}: ${answer}`);
  assert.is(answer.status, 503, what);
  assert.is(answer.headers['retry-after'], '1', what);
  assert.is(answer.headers.connection, 'close', what);
}

t('a request during the drain is 503, Retry-After, Connection: close; the one in flight completes 200', async () => {
  const server = await startTestServer({ 'server.drain-window-ms': '0' });
  try {
    const held = await holdLogin(server.url);
    const stopped = server.stop();
    const health = await request(server.url, '/health');
    assertDrain503(health, 'GET /health');
    if (typeof health === 'string') return;
    assert.is(health.headers['content-type'], 'application/problem+json');
    const problem = JSON.parse(health.body) as { type: string; status: number; detail: string };
    assert.is(problem.type, 'urn:problem:troupe:unavailable');
    assert.is(problem.status, 503);
    assert.is(problem.detail, 'The service is unavailable; try again shortly');
    // An OAuth route answers in the body its routes declare.
    const token = await request(server.url, '/oauth/token');
    assertDrain503(token, 'GET /oauth/token');
    if (typeof token === 'string') return;
    assert.is((JSON.parse(token.body) as { error: string }).error, 'temporarily_unavailable');

    const answer = await held.finish();
    assert.match(answer, /^HTTP\/1\.1 200 /);
    // Its connection is kept: the client's next request, on it, is told (closing it would have the
    // client open another, perhaps as the listener closes).
    assert.not.match(answer, /\r\nConnection: close\r\n/i, 'the connection of a request begun before is kept');
    assert.match(answer, /"access_token":"/);
    await stopped;
    assert.is(await request(server.url, '/health'), 'ECONNREFUSED');
  } finally {
    await server.close();
  }
});

t('a request begun before keeps its connection: the next request on it is the 503, which closes it', async () => {
  // A window far longer than the test may take: the listener closes without waiting for it.
  const server = await startTestServer({ 'server.drain-window-ms': '600000', 'server.shutdown-timeout-ms': '600000' });
  try {
    const held = await holdLogin(server.url);
    const stopped = server.stop();
    const answer = await held.finish();
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.not.match(answer, /\r\nConnection: close\r\n/i);
    const next = await held.again('/health');
    assert.match(next, /^HTTP\/1\.1 503 /);
    assert.match(next, /\r\nRetry-After: 1\r\n/i);
    assert.match(next, /\r\nConnection: close\r\n/i);
    // Its only connection closed, and none came since: nothing can be under way, the listener closes.
    let bound: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      stopped.then(() => 'stopped'),
      new Promise<string>((resolve) => (bound = setTimeout(() => resolve('still draining after 10 s'), 10_000))),
    ]);
    clearTimeout(bound);
    assert.is(outcome, 'stopped');
    assert.is(await request(server.url, '/health'), 'ECONNREFUSED');
  } finally {
    await server.close();
  }
});

t('a kept-alive connection idle when the drain begins gets the 503 on its next request', async () => {
  const server = await startTestServer({ 'server.drain-window-ms': '0' });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await request(server.url, '/health', agent);
    assert.is(typeof first === 'string' ? first : first.status, 200);
    const held = await holdLogin(server.url);
    const stopped = server.stop();
    assertDrain503(await request(server.url, '/health', agent), 'the kept-alive connection');
    assert.match(await held.finish(), /^HTTP\/1\.1 200 /);
    await stopped;
  } finally {
    agent.destroy();
    await server.close();
  }
});

t('under load no connection is reset: every request is answered, 200 before the drain or 503 during it', async () => {
  const server = await startTestServer({ 'server.drain-window-ms': '0' });
  const agent = new Agent({ keepAlive: true, maxSockets: 20 });
  const answers: (Answer | string)[] = [];
  /** Requests one after another, half on new connections, half kept alive, until the drain's 503. */
  const client = async (i: number): Promise<void> => {
    for (;;) {
      const answer = await request(server.url, '/health', i % 2 === 0 ? false : agent);
      answers.push(answer);
      if (typeof answer === 'string' || answer.status !== 200) return;
    }
  };
  try {
    const held = await holdLogin(server.url);
    const clients = Array.from({ length: 40 }, (_, i) => client(i));
    // Load first: each client has been answered at least once before the drain begins.
    while (answers.length < 200) await new Promise((resolve) => setImmediate(resolve));
    const stopped = server.stop();
    await Promise.all(clients);
    // Every client has had its 503: only now may the listener close.
    assert.match(await held.finish(), /^HTTP\/1\.1 200 /);
    await stopped;
    const failed = answers.filter((a): a is string => typeof a === 'string');
    assert.equal(failed, [], 'no connection reset or refused');
    const statuses = new Set(answers.map((a) => (typeof a === 'string' ? a : a.status)));
    assert.equal([...statuses].sort(), [200, 503]);
    for (const a of answers) if (typeof a !== 'string' && a.status === 503) assertDrain503(a, 'a 503 under load');
  } finally {
    agent.destroy();
    await server.close();
  }
});

t.run();
