/**
 * Scenario 16: claim 10's request (`GET /api/employee/:id` with a bearer token) on a default
 * server and on one whose data directory has the recent features in use: a signing-key set that
 * went through rotations (`npm run keys`: a retired, an active and a next key), 1,000 more
 * accounts (ten of them disabled through `PATCH /app/admin/users/:id`, which revokes their tokens)
 * and a `security.clients-file` of 50 registered clients. Both serve the same employees (one
 * seeded file, copied before the features are added) and must answer the same status, ETag and
 * body before anything is measured; req/s and server CPU µs per request are taken in interleaved
 * rounds, best of each.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import bcrypt from 'bcryptjs';
import { basic, login, postToken } from '../helpers/tokens.ts';
import { baseEnv, interleaved, sleep, startTroupe, tempDir, type BestRound, type Child } from './harness.ts';
import type { Report } from './report.ts';
import { row, type BenchSettings } from './scenarios-security.ts';
import { seedAccounts, seedEmployees } from './seed.ts';

const run = promisify(execFile);

const ACCOUNTS = 1000;
const accountsText = ACCOUNTS.toLocaleString('en-US');
const DISABLED = 10;
const CLIENTS = 50;
/** The plain secret of every confidential client of the file (hashed once, at cost 4). */
const CLIENT_SECRET = 'bench-client-secret';

interface Side {
  readonly name: 'default' | 'features';
  readonly child: Child;
  readonly headers: Record<string, string>;
}

/** `npm run keys -- …` against the data directory, as an operator runs it beside the server. */
async function keys(dataDir: string, env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['scripts/keys.ts', ...args], {
    env: { ...baseEnv(), CONFIG_FILE: '/dev/null', DATA_DIR: dataDir, ...env },
  });
  return stdout;
}

/**
 * Leaves the set with a retired, an active and a next key: a first key, a second that takes over
 * at once (publish-ahead 0, in a later second than the first), and a third published an hour
 * ahead of signing.
 */
async function rotateKeys(dataDir: string): Promise<string> {
  await keys(dataDir, { SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: '0' }, 'rotate');
  await sleep(1100);
  await keys(dataDir, { SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: '0' }, 'rotate');
  await keys(dataDir, { SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: '3600' }, 'rotate');
  const states = (JSON.parse(await keys(dataDir, {}, 'list', '--json')) as { state: string }[]).map((k) => k.state);
  if (states.join(',') !== 'retired,active,next') throw new Error(`the key set is ${states.join(',')} after rotating`);
  return states.join(', ');
}

/** 50 clients in RFC 7591 fields, of every kind the file takes; returns the file and a service client's id. */
function clientsFile(dir: string): { file: string; service: string } {
  const secret = bcrypt.hashSync(CLIENT_SECRET, 4);
  const clients = Array.from({ length: CLIENTS }, (_, i) => {
    const id = `bench-client-${i}`;
    const redirect = `https://app${i}.bench.example/callback`;
    switch (i % 4) {
      case 0:
        return {
          client_id: id,
          client_name: `Service ${i}`,
          client_secret: secret,
          grant_types: ['client_credentials'],
          scope: 'read',
        };
      case 1:
        return {
          client_id: id,
          client_secret: secret,
          token_endpoint_auth_method: 'client_secret_post',
          redirect_uris: [redirect],
          grant_types: ['authorization_code', 'refresh_token'],
          scope: 'read write',
        };
      case 2:
        return { client_id: id, token_endpoint_auth_method: 'none', redirect_uris: [redirect], scope: 'read' };
      default:
        return { client_id: id, client_secret: secret, grant_types: ['password', 'refresh_token'] };
    }
  });
  const file = join(dir, 'clients.json');
  writeFileSync(file, JSON.stringify(clients));
  return { file, service: 'bench-client-0' };
}

/** Status, ETag and body bytes of one answer. */
async function answer(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(url, { headers });
  return `${res.status} ${res.headers.get('ETag') ?? '(no ETag)'} ${await res.text()}`;
}

async function expectStatus(res: Promise<Response>, status: number, what: string): Promise<void> {
  const r = await res;
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${await r.text()}`);
}

export async function features(report: Report, s: BenchSettings, rounds = 2): Promise<void> {
  const plainDir = tempDir('features-default');
  const usedDir = tempDir('features-used');
  seedEmployees(plainDir, 1000);
  // The same employees (ids, versions, times) on both sides: the answers can be compared byte for byte.
  for (const suffix of ['', '-wal', '-shm'])
    if (existsSync(join(plainDir, `troupe.db${suffix}`)))
      copyFileSync(join(plainDir, `troupe.db${suffix}`), join(usedDir, `troupe.db${suffix}`));
  const accounts = seedAccounts(usedDir, ACCOUNTS, bcrypt.hashSync('bench-account-password', 4));
  const keySet = await rotateKeys(usedDir);
  const clients = clientsFile(usedDir);

  const plain = await startTroupe(plainDir);
  let used: Child | undefined;
  try {
    used = await startTroupe(usedDir, { SECURITY_CLIENTS_FILE: clients.file });
    const headersOf = async (child: Child) => ({ Authorization: `Bearer ${(await login(child.url)).access_token}` });
    const sides: Side[] = [
      { name: 'default', child: plain, headers: await headersOf(plain) },
      { name: 'features', child: used, headers: await headersOf(used) },
    ];
    const [a, b] = sides as [Side, Side];

    // Account administration in use: accounts disabled through the admin API (their tokens revoked).
    for (const id of accounts.slice(0, DISABLED))
      await expectStatus(
        fetch(`${used.url}/app/admin/users/${id}`, {
          method: 'PATCH',
          headers: { ...b.headers, 'Content-Type': 'application/json' },
          body: '{"enabled":false}',
        }),
        200,
        `disabling account ${id}`,
      );
    // The clients file is in force: a registered service gets a token.
    await expectStatus(
      postToken(
        used.url,
        { grant_type: 'client_credentials' },
        { Authorization: basic(clients.service, CLIENT_SECRET) },
      ),
      200,
      `client_credentials token of ${clients.service}`,
    );

    const search = await fetch(`${plain.url}/api/employee/search`, {
      method: 'POST',
      headers: { ...a.headers, 'Content-Type': 'application/json' },
      body: '{"limit":1}',
    });
    const employeeId = String(((await search.json()) as { items: { id: string }[] }).items[0]?.id);
    const path = `/api/employee/${employeeId}`;
    const expected = await answer(plain.url + path, a.headers);
    if (!expected.startsWith('200 ')) throw new Error(`the default server answers ${expected}`);
    const got = await answer(used.url + path, b.headers);
    if (got !== expected) throw new Error(`the server with the features answers ${got} against ${expected}`);

    const spec = (side: Side) => ({ url: side.child.url, path, headers: side.headers, connections: 10 });
    s.log(
      `GET /api/employee/:id with a token: a default server vs one with keys rotated (${keySet}), ${accountsText} more accounts, ${CLIENTS} registered clients`,
    );
    const best = await interleaved(
      sides.map((side) => ({
        key: side.name,
        label: side.name,
        child: side.child,
        spec: { ...spec(side), duration: s.seconds },
      })),
      rounds,
      s.log,
    );
    const of = (name: Side['name']): BestRound => {
      const found = best.get(name);
      if (!found) throw new Error(`no measurement of the ${name} server`);
      return found;
    };
    const d = of('default');
    const f = of('features');
    report.measurements.push(
      row(
        'GET /api/employee/:id, bearer token, default server',
        d.r,
        d.rss,
        `baseline of claim 16; ${d.cpuUs.toFixed(1)} CPU µs/request`,
      ),
      row(
        `GET /api/employee/:id, bearer token, keys rotated, ${accountsText} more accounts, ${CLIENTS} clients`,
        f.r,
        f.rss,
        `${f.cpuUs.toFixed(1)} CPU µs/request; key set ${keySet}; ${DISABLED} accounts disabled through the admin API`,
      ),
    );
    report.claims.push(
      {
        claim: `16. employee get with keys rotated, ${accountsText} accounts, ${CLIENTS} clients / default server`,
        ratio: f.r.rps / d.r.rps,
        op: '>=',
        bound: 0.95,
        meaning: 'the key set, account administration and registered clients do not move the hot path',
      },
      {
        claim: '16b. CPU per employee get, default server / with the features in use',
        ratio: d.cpuUs / f.cpuUs,
        op: 'info',
        bound: 0,
        meaning: `${d.cpuUs.toFixed(1)} against ${f.cpuUs.toFixed(1)} CPU µs per request (less disturbed by other work on the machine than req/s)`,
      },
    );
  } finally {
    await Promise.all([plain.stop(), used?.stop()]);
  }
}
