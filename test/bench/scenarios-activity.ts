/**
 * Scenario 6: ActivityActor passivation. Many users' actors touched once, stopped when idle, and
 * what the server retains afterwards weighed against before, each time after full collections run
 * in the server through its inspector; the resident set sampled 30 s after the stops, with no
 * collection forced, is reported beside it (docs/benchmarks.md, "Claim 6").
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectInspector, type Inspector, type Memory } from '../helpers/inspector.ts';
import { login } from '../helpers/tokens.ts';
import { load, sleep, startTroupe, tempDir, type Child, type LoadResult, type LoadSpec } from './harness.ts';
import type { Report } from './report.ts';
import { row, type BenchSettings } from './scenarios-security.ts';
import { seedUsers } from './seed.ts';

const MIB = 1024 * 1024;

async function liveActivityActors(server: Child): Promise<number> {
  const text = await fetch(`${server.url}/metrics`).then((r) => r.text());
  return Number(/^actor_live\{actor="activity\/\*",pid="\d+"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** Polls until at most `max` activity actors are live; returns the count and the time it took. */
async function drain(server: Child, max: number, timeoutMs: number): Promise<{ live: number; ms: number }> {
  const started = performance.now();
  let live = await liveActivityActors(server);
  while (live > max && performance.now() - started < timeoutMs) {
    await sleep(500);
    live = await liveActivityActors(server);
  }
  return { live, ms: performance.now() - started };
}

/**
 * How long the server stays idle after its actors stopped before its resident set is sampled as
 * it is. V8 collects the stopped actors when its own schedule says so (its memory reducer, the
 * next allocation past the old generation's limit); an idle process may not within this time.
 */
const SETTLE_MS = 30_000;

/** Runs the load while sampling the live actor count and RSS every 2 s. */
async function touchAndWatch(
  server: Child,
  spec: LoadSpec,
): Promise<{ touched: LoadResult; peakLive: number; peakRss: number }> {
  let peakLive = 0;
  let peakRss = server.rss();
  const touching = load(spec);
  let done = false;
  void touching.finally(() => {
    done = true;
  });
  while (!done) {
    await sleep(2000);
    peakLive = Math.max(peakLive, await liveActivityActors(server));
    peakRss = Math.max(peakRss, server.rss());
  }
  return { touched: await touching, peakLive, peakRss };
}

export interface ActivitySettings {
  readonly users: number;
  readonly idleMs: number;
}

interface ActivityFigures {
  readonly peakLive: number;
  readonly endLive: number;
  /** RSS in MiB as sampled: before the touch, its peak, right after the stops, {@link SETTLE_MS} later. */
  readonly sampled: {
    readonly start: number;
    readonly peak: number;
    readonly drained: number;
    readonly settled: number;
  };
  /** What the server retains after full collections, before the touch and once the actors stopped. */
  readonly before: Memory;
  readonly after: Memory;
}

function reportActivity(report: Report, a: ActivitySettings, touched: LoadResult, f: ActivityFigures): void {
  const mib = (bytes: number): string => (bytes / MIB).toFixed(0);
  const { sampled: s, before, after } = f;
  report.measurements.push(
    row(
      `GET /api/users/activity, ${a.users} distinct users`,
      touched,
      s.settled,
      `idle-ms ${a.idleMs}; live actors: peak ${f.peakLive}, end ${f.endLive}; RSS MiB sampled: start ${s.start.toFixed(0)}, peak ${s.peak.toFixed(0)}, when the actors had stopped ${s.drained.toFixed(0)}, ${SETTLE_MS / 1000} s later ${s.settled.toFixed(0)}; after full collections, before the touch / after the stops: heap ${mib(before.heapUsed)} / ${mib(after.heapUsed)} MiB, RSS ${mib(before.rss)} / ${mib(after.rss)} MiB`,
    ),
  );
  report.claims.push(
    {
      claim: `6. live ActivityActors after idle / users touched (${a.users})`,
      ratio: f.endLive / a.users,
      op: '<=',
      bound: 0.01,
      meaning: 'idle actors stop',
    },
    {
      claim: '6. heap in use after the stops / before the touch (after full collections)',
      ratio: after.heapUsed / before.heapUsed,
      op: '<=',
      bound: 1.1,
      meaning: 'stopped actors leave nothing behind',
    },
    {
      claim: '6. RSS after the stops / before the touch (after full collections)',
      ratio: after.rss / before.rss,
      op: '<=',
      bound: 1.5,
      meaning: 'stopped actors give their memory back',
    },
    {
      claim: `6. RSS ${SETTLE_MS / 1000} s after the stops / before the touch (sampled, nothing forced)`,
      ratio: s.settled / s.start,
      op: 'info',
      bound: 0,
      meaning: 'when V8 collects by itself: its schedule, not what the actors keep',
    },
  );
}

/** Scenario 6: touch many users' ActivityActors, wait past the idle time, count and weigh what is left. */
export async function activity(report: Report, s: BenchSettings, a: ActivitySettings): Promise<void> {
  const dir = tempDir('activity');
  const ids = seedUsers(dir, a.users + 500);
  const paths = (list: readonly string[], file: string): string => {
    writeFileSync(join(dir, file), list.map((id) => `/api/users/activity?userId=${id}&limit=1`).join('\n'));
    return join(dir, file);
  };
  const server = await startTroupe(dir, { ACTORS_ACTIVITY_IDLE_MS: String(a.idleMs) }, { inspect: true });
  let inspector: Inspector | undefined;
  try {
    const address = server.inspector();
    if (address === undefined) throw new Error("the server did not print its inspector's address");
    inspector = await connectInspector(address);
    const spec: LoadSpec = {
      url: server.url,
      path: '/',
      headers: { Authorization: `Bearer ${(await login(server.url)).access_token}` },
      connections: 10,
      linesAs: 'path',
    };
    await load({ ...spec, amount: 500, linesFile: paths(ids.slice(a.users), 'warm.txt') });
    await drain(server, 0, a.idleMs + 10_000);
    const start = server.rss();
    const before = await inspector.memoryAfterCollection();
    s.log(
      `activity: touching ${a.users} users' ActivityActors (idle-ms ${a.idleMs}), start RSS ${start.toFixed(0)} MiB, ${(before.rss / MIB).toFixed(0)} MiB after full collections`,
    );
    const { touched, peakLive, peakRss } = await touchAndWatch(server, {
      ...spec,
      amount: a.users,
      linesFile: paths(ids.slice(0, a.users), 'touch.txt'),
    });
    const stopped = await drain(server, Math.floor(a.users / 100), a.idleMs + 60_000);
    const drained = server.rss();
    await sleep(SETTLE_MS);
    const settled = server.rss();
    const endLive = await liveActivityActors(server);
    const after = await inspector.memoryAfterCollection();
    s.log(
      `activity: peak ${peakLive} live, ${endLive} after ${Math.round(stopped.ms)} ms; RSS peak ${peakRss.toFixed(0)}, at the drain ${drained.toFixed(0)}, ${SETTLE_MS / 1000} s later ${settled.toFixed(0)} MiB, ${(after.rss / MIB).toFixed(0)} MiB after full collections`,
    );
    reportActivity(report, a, touched, {
      peakLive,
      endLive,
      sampled: { start, peak: peakRss, drained, settled },
      before,
      after,
    });
  } finally {
    inspector?.close();
    await server.stop();
  }
}
