/**
 * Concurrency: conditional updates (`If-Match`) racing on one record, and creates racing on one
 * email. Exactly one writer wins each version, and no acknowledged update is lost silently.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openReader } from '../helpers/faults.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { login } from '../helpers/tokens.ts';
import { send, type Sent } from '../helpers/user-data.ts';

interface Ctx {
  server: TestServer;
  token: string;
}
const ctx = {} as Ctx;
const t = suite('reliability: concurrent writers', ctx);

t.before(async () => {
  ctx.server = await startTestServer();
  ctx.token = (await login(ctx.server.url)).access_token;
});
t.after(async () => ctx.server?.close());

interface Versioned {
  id: string;
  name: string;
  version: number;
}

/** How one resource is read and conditionally renamed. */
interface Resource {
  create(): Promise<Versioned>;
  read(id: string): Promise<Versioned>;
  rename(id: string, name: string, version: number): Promise<Sent>;
}

const api = (method: string, path: string, json?: unknown, headers?: Record<string, string>) =>
  send(ctx.server.url, method, path, { token: ctx.token, json, ...(headers ? { headers } : {}) });

let serial = 0;
const employees: Resource = {
  create: async () =>
    (await api('POST', '/api/employee/create', { name: 'Racer', dateOfBirth: '1990-01-01' })).body as Versioned,
  read: async (id) => (await api('GET', `/api/employee/${id}`)).body as Versioned,
  rename: (id, name, version) => api('PUT', `/api/employee/update?id=${id}`, { name }, { 'If-Match': `"${version}"` }),
};
const users: Resource = {
  create: async () =>
    (await api('POST', '/api/user', { name: 'Racer', email: `racer${++serial}@example.com` })).body as Versioned,
  read: async (id) => ((await api('GET', `/api/users/activity?userId=${id}&limit=1`)).body as { user: Versioned }).user,
  rename: (id, name, version) => api('PUT', '/api/user', { id, name }, { 'If-Match': `"${version}"` }),
};

async function oneWinnerPerVersion(resource: Resource): Promise<void> {
  const record = await resource.create();
  const racers = await Promise.all(Array.from({ length: 20 }, (_, i) => resource.rename(record.id, `Racer ${i}`, 1)));
  const statuses = racers.map((r) => r.status).sort();
  assert.equal(statuses, [200, ...Array<number>(19).fill(412)]);
  const winner = racers.find((r) => r.status === 200)?.body as Versioned;
  const now = await resource.read(record.id);
  assert.equal([now.version, now.name], [2, winner.name]);
}

/** Each client renames the record `rounds` times, re-reading after every 412. */
async function client(resource: Resource, id: string, me: number, rounds: number): Promise<Versioned[]> {
  const won: Versioned[] = [];
  while (won.length < rounds) {
    const current = await resource.read(id);
    const res = await resource.rename(id, `client ${me} round ${won.length}`, current.version);
    if (res.status === 200) won.push(res.body as Versioned);
    else assert.is(res.status, 412, JSON.stringify(res.body));
  }
  return won;
}

async function noLostUpdate(resource: Resource): Promise<void> {
  const record = await resource.create();
  const wins = (await Promise.all(Array.from({ length: 8 }, (_, me) => client(resource, record.id, me, 5)))).flat();
  const versions = wins.map((w) => w.version).sort((a, b) => a - b);
  assert.equal(
    versions,
    Array.from({ length: 40 }, (_, i) => i + 2),
    'each acknowledged update got its own version',
  );
  const now = await resource.read(record.id);
  assert.is(now.version, 41);
  assert.is(now.name, wins.find((w) => w.version === 41)?.name);
}

t('employees › 20 updates with the same If-Match: exactly one 200, the rest 412', () => oneWinnerPerVersion(employees));
t('users › 20 updates with the same If-Match: exactly one 200, the rest 412', () => oneWinnerPerVersion(users));
t('employees › 8 clients × 5 read-modify-write updates: versions 2…41, each acknowledged once, none lost', () =>
  noLostUpdate(employees),
);
t('users › 8 clients × 5 read-modify-write updates: versions 2…41, each acknowledged once, none lost', () =>
  noLostUpdate(users),
);

t('users › 20 concurrent creates with one email (in different cases): exactly one 201, the rest 409', async () => {
  const email = (i: number): string => (i % 2 === 0 ? 'Same.Email@Example.com' : 'same.email@example.COM');
  const racers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => api('POST', '/api/user', { name: `Twin ${i}`, email: email(i) })),
  );
  assert.equal(racers.map((r) => r.status).sort(), [201, ...Array<number>(19).fill(409)]);
  const reader = openReader(ctx.server.dataDir);
  const stored = reader
    .prepare('select count(*) from user_data where lower(email) = ?')
    .pluck()
    .get('same.email@example.com');
  reader.close();
  assert.is(stored, 1);
});

t.run();
