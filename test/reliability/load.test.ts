/**
 * Load held: mixed traffic from concurrent clients on loopback against a server process, for
 * 5 s (60 s under SOAK=1): a warm-up, then two windows. No answer is a 5xx, no request hangs, and
 * what the server retains does not grow with the requests: after each window, once its
 * ActivityActors have idled out, full collections run in the server (through its inspector) and
 * its heap and resident set are read. A leak grows the heap in every window; warm-up (code, caches,
 * the allocator's arenas) grows the resident set once. Why not a sample of the resident set under
 * load: docs/reliability.md, "Load held".
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectBelow } from '../helpers/bounds.ts';
import { rssOf, startInspectedServer } from '../helpers/child.ts';
import { note } from '../helpers/skip.ts';
import type { Memory } from '../helpers/inspector.ts';
import { tempDir } from '../helpers/server.ts';
import { SOAK } from '../helpers/soak.ts';
import { login } from '../helpers/tokens.ts';
import { waitFor } from '../helpers/wait.ts';

const WARM_UP_MS = SOAK ? 10_000 : 1_000;
const WINDOW_MS = SOAK ? 25_000 : 2_000;
const WINDOWS = 2;
const CLIENTS = 16;
const MIB = 1024 * 1024;
/** The most the heap in use (with V8's external memory) may grow in one window, after full collections. */
const HEAP_BOUND_MIB = 8;
/** The most the resident set may grow from the end of the warm-up to the end of the run, after full collections. */
const RSS_BOUND_MIB = 64;

/** The ActivityActors alive in the server, from its /metrics. */
async function liveActivityActors(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const live = /^actor_live\{actor="activity\/\*",pid="\d+"\} (\d+)$/m.exec(metrics)?.[1];
  assert.ok(live !== undefined, '/metrics reports the live ActivityActors');
  return Number(live);
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

/** One client's rounds until `until`; `rounds[me]` carries its count across windows, so every tag is new. */
async function client(call: Call, me: number, until: number, rounds: number[]): Promise<void> {
  while (Date.now() < until) await mix(call, `c${me}-${(rounds[me] = (rounds[me] ?? 0) + 1)}`);
}

const mib = (bytes: number): string => (bytes / MIB).toFixed(1);
const retained = (m: Memory): number => m.heapUsed + m.external;

const t = suite('reliability: load held');

t(
  `${(WARM_UP_MS + WINDOWS * WINDOW_MS) / 1000} s of mixed traffic from ${CLIENTS} clients: no 5xx; after the warm-up, heap growth < ${HEAP_BOUND_MIB} MiB a window, resident set growth < ${RSS_BOUND_MIB} MiB`,
  async () => {
    const dataDir = tempDir('troupe-load-');
    // Each client creates a user per round, and each user gets an ActivityActor; they stop after
    // 1 s idle instead of the default 60 s, so that between windows the server holds what requests
    // leave behind, not the thousands of actors legitimately alive within their idle period.
    const server = await startInspectedServer(dataDir, { ACTORS_ACTIVITY_IDLE_MS: '1000' });
    try {
      const tally: Tally = { statuses: new Map(), failures: [], requests: 0 };
      const call = caller(server.url, (await login(server.url)).access_token, tally);
      const rounds: number[] = [];
      /** Traffic for `ms`; then, with the window's actors stopped, what the server retains. */
      const window = async (ms: number): Promise<{ requests: number; sampled: number; memory: Memory }> => {
        const before = tally.requests;
        const until = Date.now() + ms;
        await Promise.all(Array.from({ length: CLIENTS }, (_, me) => client(call, me, until, rounds)));
        await waitFor(
          async () => (await liveActivityActors(server.url)) === 0,
          'the ActivityActors idled out',
          15_000,
          100,
        );
        const sampled = rssOf(server.pid);
        return { requests: tally.requests - before, sampled, memory: await server.inspector.memoryAfterCollection() };
      };
      const warm = await window(WARM_UP_MS);
      const windows = [warm];
      for (let n = 1; n <= WINDOWS; n++) {
        const now = await window(WINDOW_MS);
        const prev = windows[n - 1] ?? warm;
        windows.push(now);
        note(
          `load window ${n} of ${WINDOWS}: ${now.requests} requests; after full collections heap + external ` +
            `${mib(retained(prev.memory))} → ${mib(retained(now.memory))} MiB, resident set ${mib(prev.memory.rss)} → ` +
            `${mib(now.memory.rss)} MiB (${mib(now.sampled)} MiB sampled before them)`,
        );
      }
      assert.equal(tally.failures.slice(0, 5), [], `${tally.failures.length} answers were 5xx`);
      const unexpected = [...tally.statuses.keys()].filter((s) => s >= 300);
      assert.equal(unexpected, [], `statuses other than success: ${JSON.stringify([...tally.statuses])}`);
      assert.ok(tally.requests > CLIENTS, 'the clients made requests');
      for (let n = 1; n <= WINDOWS; n++) {
        const [prev, now] = [windows[n - 1] ?? warm, windows[n] ?? warm];
        const growth = (retained(now.memory) - retained(prev.memory)) / MIB;
        expectBelow(growth, HEAP_BOUND_MIB, `the heap's growth over window ${n} (${now.requests} requests)`);
      }
      const end = windows.at(-1) ?? warm;
      expectBelow(
        (end.memory.rss - warm.memory.rss) / MIB,
        RSS_BOUND_MIB,
        "the resident set's growth after the warm-up",
      );
      assert.is((await fetch(`${server.url}/health`)).status, 200);
    } finally {
      await server.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

t.run();
