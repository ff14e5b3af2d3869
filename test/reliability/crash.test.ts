/**
 * Crash durability: a server process takes a stream of writes (employees, users, activity) and is
 * killed with SIGKILL at a random moment, then started again on the same data directory. Every
 * write acknowledged with a 2xx before the kill is present and intact, and the database passes
 * `PRAGMA integrity_check`. Cycles alternate `data.sqlite.synchronous` FULL and NORMAL (with WAL,
 * both survive a process crash; only FULL survives power loss, which a test cannot cut).
 * Replay a run with CRASH_SEED=<seed>.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer } from '../helpers/child.ts';
import { tempDir } from '../helpers/server.ts';
import { random, seedFrom, SOAK } from '../helpers/soak.ts';
import { login } from '../helpers/tokens.ts';

const CYCLES = SOAK ? 12 : 2;
const WRITERS = 6;

interface EmployeeEntry {
  name: string;
  renamed: string;
  renameAcked: boolean;
}
interface Ledger {
  readonly employees: Map<string, EmployeeEntry>;
  readonly users: Map<string, { name: string; email: string }>;
  readonly activities: Map<string, { userId: string; type: string; tag: string }>;
  /** Answers that were neither a success nor a lost connection: there must be none. */
  readonly unexpected: string[];
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

function requester(url: string, token: string) {
  return async (method: string, path: string, json: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(`${url}${path}`, {
      method,
      body: JSON.stringify(json),
      signal: AbortSignal.timeout(10_000),
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

type Send = ReturnType<typeof requester>;

/** One round of writes; each success enters the ledger as soon as its answer arrives. */
async function round(send: Send, tag: string, ledger: Ledger): Promise<void> {
  const check = (a: Answer, status: number, what: string): boolean => {
    if (a.status !== status) ledger.unexpected.push(`${what} ${tag}: ${a.status} ${JSON.stringify(a.body)}`);
    return a.status === status;
  };
  const emp = await send('POST', '/api/employee/create', { name: `E ${tag}`, dateOfBirth: '1970-01-01' });
  if (!check(emp, 201, 'create employee')) return;
  const entry = { name: `E ${tag}`, renamed: `R ${tag}`, renameAcked: false };
  ledger.employees.set(String(emp.body['id']), entry);
  const upd = await send(
    'PUT',
    `/api/employee/update?id=${String(emp.body['id'])}`,
    { name: entry.renamed },
    { 'If-Match': '"1"' },
  );
  if (check(upd, 200, 'update employee')) entry.renameAcked = true;
  const user = await send('POST', '/api/user', { name: `U ${tag}`, email: `${tag}@example.com` });
  if (!check(user, 201, 'create user')) return;
  const userId = String(user.body['id']);
  ledger.users.set(userId, { name: `U ${tag}`, email: `${tag}@example.com` });
  const act = await send('POST', '/api/users/activity', { userId, type: 'CRASH_TEST', detail: { tag } });
  if (check(act, 201, 'record activity'))
    ledger.activities.set(String(act.body['id']), { userId, type: 'CRASH_TEST', tag });
}

/** Writes until the connection is lost (the kill). */
async function writer(send: Send, name: string, ledger: Ledger): Promise<void> {
  for (let n = 0; ; n++) {
    try {
      await round(send, `${name}-${n}`, ledger);
    } catch {
      return;
    }
  }
}

type Row = Record<string, unknown> | undefined;

function employeeProblem(id: string, e: EmployeeEntry, row: Row): string | undefined {
  if (!row) return `employee ${id} (${e.name}) is missing`;
  const original = row['version'] === 1 && row['name'] === e.name && !e.renameAcked;
  const renamed = row['version'] === 2 && row['name'] === e.renamed;
  return original || renamed ? undefined : `employee ${id} is ${JSON.stringify(row)}, expected ${JSON.stringify(e)}`;
}

/** What is wrong with the database after a kill, against the acknowledged writes. */
function verify(dataDir: string, ledger: Ledger): string[] {
  const db = new Database(join(dataDir, 'troupe.db'));
  try {
    const problems: string[] = [];
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') problems.push(`integrity_check: ${String(integrity)}`);
    const employee = db.prepare<[string], Row>('select name, version from employees where id = ?');
    for (const [id, e] of ledger.employees) problems.push(employeeProblem(id, e, employee.get(id)) ?? '');
    const user = db.prepare<[string], Row>('select name, email, version from user_data where id = ?');
    const created = db.prepare<[string], Row>(
      "select 1 as found from user_activity where user_id = ? and type = 'USER_CREATED'",
    );
    for (const [id, u] of ledger.users) {
      const row = user.get(id);
      if (row?.['name'] !== u.name || row['email'] !== u.email)
        problems.push(`user ${id} is ${JSON.stringify(row)}, expected ${JSON.stringify(u)}`);
      if (!created.get(id)) problems.push(`user ${id} has no USER_CREATED activity`);
    }
    const activity = db.prepare<[string], Row>('select user_id, type, detail from user_activity where id = ?');
    for (const [id, a] of ledger.activities) {
      const row = activity.get(id);
      if (row?.['user_id'] !== a.userId || row['type'] !== a.type || row['detail'] !== JSON.stringify({ tag: a.tag }))
        problems.push(`activity ${id} is ${JSON.stringify(row)}`);
    }
    return problems.filter((p) => p !== '');
  } finally {
    db.close();
  }
}

async function cycle(dataDir: string, index: number, next: () => number, ledger: Ledger): Promise<number> {
  const server = await startChildServer(dataDir, { DATA_SQLITE_SYNCHRONOUS: index % 2 === 0 ? 'FULL' : 'NORMAL' });
  try {
    const send = requester(server.url, (await login(server.url)).access_token);
    const before = ledger.employees.size;
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(send, `c${index}w${w}`, ledger));
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.floor(next() * 1300)));
    await server.kill();
    await Promise.all(writers);
    return ledger.employees.size - before;
  } finally {
    server.child.kill('SIGKILL');
  }
}

const t = suite('reliability: SIGKILL during writes');

t(`${CYCLES} kill/restart cycles: every acknowledged write survives, integrity_check ok`, async () => {
  const seed = seedFrom('CRASH_SEED');
  const next = random(seed);
  const dataDir = tempDir('troupe-crash-');
  const ledger: Ledger = { employees: new Map(), users: new Map(), activities: new Map(), unexpected: [] };
  try {
    for (let i = 0; i < CYCLES; i++) {
      const written = await cycle(dataDir, i, next, ledger);
      assert.ok(written > 0, `cycle ${i} acknowledged no write (seed ${seed})`);
      assert.equal(ledger.unexpected, [], `answers other than success (seed ${seed})`);
      assert.equal(verify(dataDir, ledger), [], `after the kill of cycle ${i} (replay: CRASH_SEED=${seed})`);
    }
    const server = await startChildServer(dataDir);
    try {
      const send = requester(server.url, (await login(server.url)).access_token);
      const [id, e] = [...ledger.employees].at(-1) ?? [];
      const res = await fetch(`${server.url}/api/employee/${id}`, {
        headers: { Authorization: `Bearer ${(await login(server.url)).access_token}` },
      });
      assert.is(res.status, 200);
      assert.ok([e?.name, e?.renamed].includes(((await res.json()) as { name: string }).name));
      assert.is((await send('POST', '/api/user', { name: 'After', email: 'after.crash@example.com' })).status, 201);
    } finally {
      await server.kill();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t.run();
