/**
 * Scenario 15, the layer ladder under claim 10: `GET /api/employee/:id` with a bearer token on the
 * bare server with 0 to 4 of the real server's layers in front of its handler (`ladder-layers.ts`)
 * and on the full server (rung 5), all on one data directory. Each rung's req/s and its server's
 * CPU µs per request (user + system of the whole process, from /proc/<pid>/stat) are taken in
 * interleaved rounds, best of each, so a slow moment of the machine hits every rung alike; the
 * difference in CPU per request between a rung and the one below it is what its layer costs.
 */
import { join } from 'node:path';
import { login } from '../helpers/tokens.ts';
import { interleaved, startBare, startTroupe, tempDir, type BestRound, type Child } from './harness.ts';
import { FLOOR, RUNGS } from './ladder-layers.ts';
import type { Report } from './report.ts';
import { row, type BenchSettings } from './scenarios-security.ts';
import { seedEmployees } from './seed.ts';

interface Rung {
  /** 0–5, or the floor. */
  readonly n: number | 'floor';
  readonly layer: string;
  readonly child: Child;
}

/** Status, ETag and body bytes of one answer. */
async function answer(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(url, { headers });
  return `${res.status} ${res.headers.get('ETag') ?? '(no ETag)'} ${await res.text()}`;
}

export async function ladder(report: Report, s: BenchSettings, rounds = 2): Promise<void> {
  const dir = tempDir('ladder');
  seedEmployees(dir, 1000);
  const troupe = await startTroupe(dir);
  const children: Child[] = [];
  try {
    const token = (await login(troupe.url)).access_token;
    const headers = { Authorization: `Bearer ${token}` };
    const search = await fetch(`${troupe.url}/api/employee/search`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: '{"limit":1}',
    });
    const employeeId = String(((await search.json()) as { items: { id: string }[] }).items[0]?.id);
    const path = `/api/employee/${employeeId}`;
    const rungs: Rung[] = [];
    for (let n = 0; n <= 4; n++) {
      // One at a time: rungs 3 and 4 start the core, which prepares the shared file as it starts.
      const child = await startBare(join(dir, 'troupe.db'), dir, { BARE_LAYERS: String(n), BARE_ISSUER: troupe.url });
      children.push(child);
      rungs.push({ n, layer: RUNGS[n] ?? '', child });
    }
    rungs.push({ n: 5, layer: RUNGS[5], child: troupe });
    const floorChild = await startBare(join(dir, 'troupe.db'), dir, { BARE_LAYERS: 'floor', BARE_ISSUER: troupe.url });
    children.push(floorChild);
    rungs.push({ n: 'floor', layer: FLOOR, child: floorChild });
    const expected = await answer(troupe.url + path, headers);
    if (!expected.startsWith('200 ')) throw new Error(`the full server answers ${expected}`);
    for (const rung of rungs) {
      const got = await answer(rung.child.url + path, headers);
      if (got !== expected)
        throw new Error(`ladder rung ${rung.n} does not answer as the full server: ${got} against ${expected}`);
    }

    const spec = (child: Child) => ({ url: child.url, path, headers, connections: 10, duration: s.seconds });
    s.log(`GET /api/employee/:id with a token, layer by layer: rungs 0–4 (bare + layers) and 5 (the full server)`);
    const best = await interleaved(
      rungs.map((rung) => ({ key: rung.n, label: `rung ${rung.n}`, child: rung.child, spec: spec(rung.child) })),
      rounds,
      s.log,
    );

    let below: BestRound | undefined;
    const bare = best.get(0);
    for (const rung of rungs) {
      const b = best.get(rung.n);
      if (!b || !bare) throw new Error(`no measurement of rung ${rung.n}`);
      if (rung.n === 'floor') {
        floorRow(report, b, bare);
        continue;
      }
      const delta = below ? `, Δ ${signed(b.cpuUs - below.cpuUs)} µs vs rung ${rung.n - 1}` : '';
      const figures = `${b.r.rps.toFixed(0)} req/s, ${b.cpuUs.toFixed(1)} CPU µs/request${delta}`;
      report.measurements.push(
        row(`ladder rung ${rung.n}: ${rung.layer}`, b.r, b.rss, `${b.cpuUs.toFixed(1)} CPU µs/request${delta}`),
      );
      report.claims.push({
        claim: `15. ladder rung ${rung.n}: ${rung.layer}${below ? ` / rung ${rung.n - 1}` : ''} (req/s)`,
        ratio: below ? b.r.rps / below.r.rps : 1,
        op: 'info',
        bound: 0,
        meaning: figures,
      });
      below = b;
    }
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await troupe.stop();
  }
}

/** The floor against the bare handler: what the design rules alone cost on this read. */
function floorRow(report: Report, b: BestRound, bare: BestRound): void {
  const cpu = `${b.cpuUs.toFixed(1)} CPU µs/request, Δ ${signed(b.cpuUs - bare.cpuUs)} µs vs rung 0`;
  const figures = `${b.r.rps.toFixed(0)} req/s, ${cpu}`;
  report.measurements.push(row(`ladder ${FLOOR}`, b.r, b.rss, cpu));
  report.claims.push({
    claim: `15. ladder ${FLOOR} / rung 0 (req/s)`,
    ratio: b.r.rps / bare.r.rps,
    op: 'info',
    bound: 0,
    meaning: figures,
  });
}

const signed = (v: number): string => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(1)}`;
