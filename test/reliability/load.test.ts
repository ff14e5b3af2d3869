/**
 * Load held: mixed traffic from concurrent clients on loopback against a server process, for
 * 5 s (60 s under SOAK=1). No answer is a 5xx, no request hangs, and the server's resident set
 * grows by less than RSS_BOUND between the end of the warm-up and the end of the run, leaving out
 * what V8's young generation grew by: V8 sizes it by itself (Node 24's semi-spaces grow to twice
 * Node 22's), whatever the requests leave behind.
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rssOf, startChildServer } from '../helpers/child.ts';
import { tempDir } from '../helpers/server.ts';
import { SOAK } from '../helpers/soak.ts';
import { login } from '../helpers/tokens.ts';

const DURATION_MS = SOAK ? 60_000 : 5_000;
const WARM_UP_MS = SOAK ? 10_000 : 1_000;
const CLIENTS = 16;
const MIB = 1024 * 1024;
/** Generous on purpose: it catches a leak that grows with the request count, not allocator noise. */
const RSS_BOUND = 64 * MIB;

/** The bytes V8's young generation holds now, as the server reports it on /metrics. */
async function youngGeneration(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const bytes = /^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)$/m.exec(metrics)?.[1];
  assert.ok(bytes !== undefined, '/metrics reports the young generation');
  return Number(bytes);
}

interface Tally {
  readonly statuses: Map<number, number>;
  readonly failures: string[];
  requests: number;
}

type Call = (
  method: string,
  path: string,
  json?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: Record<string, unknown> }>;

function caller(url: string, token: string, tally: Tally): Call {
  return async (method, path, json, headers = {}) => {
    const res = await fetch(`${url}${path}`, {
      method,
      signal: AbortSignal.timeout(10_000),
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      headers: {
        Authorization: `Bearer ${token}`,
        ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
    });
    const text = await res.text();
    tally.requests++;
    tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) tally.failures.push(`${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
    return { status: res.status, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
}

/** One client's mix: writes and reads over employees, users and activity, and the secured service. */
async function mix(call: Call, tag: string): Promise<void> {
  const emp = await call('POST', '/api/employee/create', { name: `Load ${tag}`, dateOfBirth: '1985-05-05' });
  const id = String(emp.body['id']);
  await call('GET', `/api/employee/${id}`);
  await call('PUT', `/api/employee/update?id=${id}`, { name: `Load ${tag} b` }, { 'If-Match': '"1"' });
  await call('POST', '/api/employee/search', { name: 'load', limit: 20 });
  const user = await call('POST', '/api/user', { name: `Load ${tag}`, email: `${tag}@load.example.com` });
  const userId = String(user.body['id']);
  await call('POST', '/api/users/activity', { userId, type: 'LOAD', detail: { tag } });
  await call('GET', `/api/users/activity?userId=${userId}&limit=5`);
  await call('GET', '/app/listAll');
  if (Number(tag.split('-')[1]) % 2 === 0) await call('DELETE', `/api/employee/delete?id=${id}`);
}

async function client(call: Call, me: number, until: number): Promise<void> {
  for (let n = 0; Date.now() < until; n++) await mix(call, `c${me}-${n}`);
}

const t = suite('reliability: load held');

t(
  `${DURATION_MS / 1000} s of mixed traffic from ${CLIENTS} clients: no 5xx, resident set growth < ${RSS_BOUND / MIB} MiB`,
  async () => {
    const dataDir = tempDir('troupe-load-');
    // Each client creates a user per round, and each user gets an ActivityActor; they stop after
    // 2 s idle instead of the default 60 s, so the measure is what requests leave behind, not the
    // thousands of actors that are legitimately alive within their idle period.
    const server = await startChildServer(dataDir, { ACTORS_ACTIVITY_IDLE_MS: '2000' });
    try {
      const tally: Tally = { statuses: new Map(), failures: [], requests: 0 };
      const call = caller(server.url, (await login(server.url)).access_token, tally);
      const start = Date.now();
      const clients = Array.from({ length: CLIENTS }, (_, me) => client(call, me, start + DURATION_MS));
      await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
      const warm = rssOf(server.pid);
      const youngWarm = await youngGeneration(server.url);
      await Promise.all(clients);
      const end = rssOf(server.pid);
      const youngGrowth = Math.max(0, (await youngGeneration(server.url)) - youngWarm);
      assert.equal(tally.failures.slice(0, 5), [], `${tally.failures.length} answers were 5xx`);
      const unexpected = [...tally.statuses.keys()].filter((s) => s >= 300);
      assert.equal(unexpected, [], `statuses other than success: ${JSON.stringify([...tally.statuses])}`);
      assert.ok(tally.requests > CLIENTS, 'the clients made requests');
      const mib = (bytes: number): string => (bytes / MIB).toFixed(1);
      console.log(
        `  load: ${tally.requests} requests, RSS ${mib(warm)} → ${mib(end)} MiB, young generation +${mib(youngGrowth)} MiB`,
      );
      assert.ok(
        end - warm - youngGrowth < RSS_BOUND,
        `resident set grew by ${mib(end - warm)} MiB (young generation ${mib(youngGrowth)}) over ${tally.requests} requests`,
      );
      assert.is((await fetch(`${server.url}/health`)).status, 200);
    } finally {
      await server.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

t.run();
