import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer } from './helpers/child.ts';
import { openReader } from './helpers/faults.ts';
import { startReplChild, type ReplChild } from './helpers/repl.ts';
import { closedPort } from './helpers/ports.ts';
import { tempDir } from './helpers/server.ts';
import { send, type UserActivityJson } from './helpers/user-data.ts';

/** The 24-hex id printed in a reply such as `{ ok: true, value: { id: '6b02…', … } }`. */
function idIn(text: string): string {
  const id = /id: '([0-9a-f]{24})'/.exec(text)?.[1];
  assert.ok(id, `no id in:\n${text}`);
  return id;
}

async function createUser(repl: ReplChild): Promise<string> {
  const created = await repl.type("await ask(users, Post({ name: 'Ada Lovelace', email: 'ada@example.com' }))");
  assert.match(created, /ok: true/);
  assert.match(created, /name: 'Ada Lovelace'/);
  const id = idIn(created);
  assert.is(await repl.type('const id = _.value.id'), '', 'a declaration prints nothing');
  return id;
}

interface Session {
  dataDir: string;
  repl: ReplChild | undefined;
  id: string;
}
const s = suite<Session>('npm run repl › one session, typed line by line', { dataDir: '', repl: undefined, id: '' });

s.before(async (ctx) => {
  ctx.dataDir = tempDir('troupe-repl-');
  ctx.repl = await startReplChild({ DATA_DIR: ctx.dataDir, APP_INITIAL_DATA: 'test/fixtures/initial-data-slow.json' });
});

s.after((ctx) => {
  ctx.repl?.child.kill('SIGKILL');
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

s('the banner names the data dir and every ref and protocol in scope; .actors lists the actors', async (ctx) => {
  const { repl, dataDir } = ctx;
  assert.match(repl!.output(), `actors on ${dataDir}; no HTTP port.`);
  const [, inScope = '', protocols = ''] = repl!.output().split('\n');
  for (const name of ['token', 'accounts', 'employees', 'users', 'activity']) assert.match(inScope, `${name}`);
  for (const name of ['Token', 'Accounts', 'Employee', 'User', 'Activity']) assert.match(protocols, ` ${name}`);
  const documented = readFileSync('docs/repl.md', 'utf8');
  assert.ok(documented.includes(`${inScope}\n${protocols}\n`), 'docs/repl.md shows the banner as printed');
  const tree = await repl!.type('.actors');
  for (const name of ['token', 'accounts', 'employees', 'users', 'activity'])
    assert.match(tree, new RegExp(`^  ${name} +mailbox 0$`, 'm'));
});

s('a fresh data directory: the REPL stores no issuer, as it serves no HTTP', ({ dataDir }) => {
  assert.not.ok(existsSync(join(dataDir, 'issuer')));
});

s('create a user, record an activity, read the history newest first', async (ctx) => {
  const repl = ctx.repl!;
  ctx.id = await createUser(repl);
  const recorded = await repl.type(
    "await ask(activity, record({ userId: id, type: 'PASSWORD_CHANGED', detail: { via: 'email' } }))",
  );
  assert.match(recorded, /ok: true/);
  assert.match(recorded, /type: 'PASSWORD_CHANGED'/);
  const history = await repl.type('await ask(activity, Activity.history({ userId: id, limit: 10 }))');
  assert.match(
    history,
    /type: 'PASSWORD_CHANGED',\s+detail: \{ via: 'email' \}[\s\S]*type: 'USER_CREATED'/,
    'nested values printed in full',
  );
});

s(".actors shows the user's ActivityActor under the router until it stops", async ({ repl, id }) => {
  const during = await repl!.type('.actors');
  assert.match(during, new RegExp(`^  activity +mailbox 0\\n    activity/${id} +mailbox 0$`, 'm'));
  assert.match(await repl!.type('await ask(activity, Activity.forget({ userId: id }))'), /ok: true, value: null/);
  assert.not.match(await repl!.type('.actors'), id, 'the stopped ActivityActor has left the tree');
});

s(
  '.protocol users lists the message kinds with an example each; an unknown name is refused with the usage',
  async ({ repl }) => {
    const protocol = await repl!.type('.protocol users');
    assert.match(protocol, /^users: UserActor, protocol User \(Get \| Post \| Put \| Delete\)$/m);
    for (const kind of ['Get', 'Post', 'Put', 'Delete'])
      assert.match(protocol, new RegExp(`^  ${kind} +await ask\\(users, User\\.`, 'm'));
    assert.match(
      await repl!.type('.protocol nobody'),
      /^no actor named "nobody"; usage: \.protocol token\|accounts\|employees\|users\|activity\n$/,
    );
    assert.match(await repl!.type('.protocol'), /^usage: \.protocol token\|accounts\|employees\|users\|activity\n$/);
  },
);

s('an ask that gets no reply in time prints one line; an expected failure prints the reply', async ({ repl }) => {
  // The slow user's BCrypt cost is 13 (≈0.7 s of work), so the token actor cannot answer within 50 ms.
  const silent = await repl!.type(
    "await ask(token, Token.issueToken({ clientId: 'troupe-client', username: 'slow', password: 'slow-password' }), 50)",
  );
  assert.is(silent, 'no reply from token within 50 ms\n');
  assert.match(
    await repl!.type("await ask(users, Get({ id: '000000000000000000000000' }))"),
    /ok: false,\s+code: 'user\.not_found'/,
  );
});

/** How many rows each table holds, read from the session's database file. */
function rowCounts(dataDir: string, tables: readonly string[]): Record<string, number> {
  const db = openReader(dataDir);
  try {
    return Object.fromEntries(
      tables.map((t) => [t, (db.prepare(`select count(*) as n from ${t}`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

const TABLES = ['user_data', 'user_activity', 'employees'];

s(
  'a message HTTP would refuse is not sent: one line says why, nothing is stored, no stack',
  async ({ repl, dataDir }) => {
    const before = rowCounts(dataDir, TABLES);
    const logged = repl!.stderr().length;
    const refusals: [string, string][] = [
      ["await ask(users, { type: 'Post' })", 'not sent: Post is not valid (name: is required; email: is required)'],
      [
        "await ask(users, Post({ name: '', email: 'not-an-email' }))",
        'not sent: Post is not valid (name: must not be empty; email: must be an email address)',
      ],
      [
        "await ask(employees, Employee.create({ name: '', dateOfBirth: '2023-02-30' }))",
        'not sent: Create is not valid (employee.name: must not be empty; employee.dateOfBirth: is not a calendar date)',
      ],
      ["await ask(users, { type: 'Nope', id })", "not sent: users takes Get | Post | Put | Delete, not 'Nope'"],
      ['await ask(users, Get(id))', 'not sent: Get is not valid (id: is required)'],
      [
        "await ask(employees, Employee.update(id, { name: 'X' }))",
        'not sent: Update is not valid (id: is required; changes: is required)',
      ],
      [
        'await ask(activity, { userId: id })',
        'not sent: activity takes Record | History | Forget; the message has no type',
      ],
      ["tell(users, Put({ id, name: ' ' }))", 'not sent: Put is not valid (name: must not be empty)'],
      [
        "await ask(activity, record({ userId: id, type: 'USER_CREATED' }))",
        'not sent: Record is not valid (activityType: is recorded by the service itself)',
      ],
    ];
    for (const [line, refusal] of refusals) assert.is(await repl!.type(line), `${refusal}\n`, line);
    assert.equal(rowCounts(dataDir, TABLES), before, 'nothing stored');
    assert.match(
      await repl!.type('await ask(users, Get({ id }))'),
      /name: 'Ada Lovelace',[\s\S]*version: 1/,
      'the Put was not applied',
    );
    const misuse = await repl!.type("await ask('users', Get({ id }))");
    assert.match(misuse, 'TypeError: ask(ref, msg): ref must be an actor: token, accounts, employees, users, activity');
    assert.not.match(misuse, /^\s+at /m, 'a mistake in the call prints no stack either');
    assert.is(repl!.stderr().slice(logged), '', 'nothing logged, so no stack either');
  },
);

s('a valid message is sent as HTTP would pass it on: trimmed', async ({ repl, dataDir }) => {
  const before = rowCounts(dataDir, TABLES);
  const user = await repl!.type("await ask(users, Post({ name: '  Grace Hopper ', email: ' grace@example.com' }))");
  assert.match(user, /ok: true/);
  assert.match(user, /name: 'Grace Hopper',\s+email: 'grace@example.com'/);
  const employee = await repl!.type(
    "await ask(employees, Employee.create({ name: 'Jane Roe', dateOfBirth: '1990-04-12' }))",
  );
  assert.match(employee, /ok: true,[\s\S]*name: 'Jane Roe',\s+dateOfBirth: '1990-04-12'/);
  const after = rowCounts(dataDir, TABLES);
  assert.is(after['user_data'], before['user_data']! + 1);
  assert.is(after['user_activity'], before['user_activity']! + 1, 'USER_CREATED');
  assert.is(after['employees'], before['employees']! + 1);
});

s('an account named like a registered client is refused here too: AccountActor decides', async ({ repl }) => {
  const refused = await repl!.type(
    "await ask(accounts, Accounts.createAccount({ actor: 'admin', username: 'Troupe-Client', password: 'a-fine-password-7', roles: ['USER'] }))",
  );
  assert.match(refused, /ok: false,\s+code: 'account\.username_reserved'/);
});

s('tell returns at once; the reply is printed when it arrives', async ({ repl }) => {
  const mark = repl!.output().length;
  await repl!.type('tell(users, Get({ id }))');
  const told = await repl!.waitForOutput(/reply to tell: \{[^}]*name: 'Ada Lovelace'/, mark);
  assert.match(told, /reply to tell: \{\s+ok: true,/);
  assert.not.match(told, 'undefined', 'tell itself prints nothing');
});

s('.exit: the process ends by itself with 0; the history file is in the data dir', async ({ repl, dataDir }) => {
  repl!.child.stdin.write('.exit\n');
  assert.is(await repl!.exited(), 0);
  assert.ok(existsSync(join(dataDir, 'repl_history')));
});

s.run();

const t = suite('npm run repl › around a session');

t('data written in the REPL is served over HTTP after Ctrl-D', async () => {
  const dataDir = tempDir('troupe-repl-');
  // A long ask timeout: an ask between actors left pending at exit would hold the process that long.
  const repl = await startReplChild({ DATA_DIR: dataDir, ACTORS_ASK_TIMEOUT_MS: '60000' });
  let id: string;
  try {
    id = await createUser(repl);
    // The last line comes with the end of input (Ctrl-D), so the REPL exits while the UserActor's
    // note of USER_UPDATED to the activity actor may still be on its way: it must not be lost.
    const mark = repl.output().length;
    repl.child.stdin.end("await ask(users, Put({ id, name: 'Ada King' }))\n");
    assert.is(
      await repl.exited(),
      0,
      'end of input stops the actors, closes the stores, and the process ends by itself',
    );
    assert.match(repl.output().slice(mark), /version: 2/);
    assert.is(repl.stderr().includes('Error'), false, repl.stderr());
  } finally {
    repl.child.kill('SIGKILL');
  }
  // What the session wrote is what `npm start` (its entry point, in its own process) then serves.
  const server = await startChildServer(dataDir, { SECURITY_PROTECT_API: 'false' });
  try {
    const res = await send(server.url, 'GET', `/api/users/activity?userId=${id}`);
    assert.is(res.status, 200);
    const body = res.body as UserActivityJson;
    assert.is(body.user.name, 'Ada King');
    assert.is(body.user.email, 'ada@example.com');
    assert.equal(
      body.activities.map((a) => a.type),
      ['USER_UPDATED', 'USER_CREATED'],
    );
  } finally {
    await server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t(
  '.exit ends at once, whatever an evaluation left running: a 20 s timer, an ask of the session still waiting',
  async () => {
    const dataDir = tempDir('troupe-repl-');
    const repl = await startReplChild({ DATA_DIR: dataDir }, ['--memory']);
    try {
      // What an `await` interrupted with Ctrl-C leaves behind: its timer, or its ask, still pending.
      await repl.type('setTimeout(() => {}, 20_000); undefined');
      await repl.type(
        "void ask(token, Token.issueToken({ clientId: 'troupe-client', username: 'john.doe', password: 'wrong' }), 20_000)",
      );
      repl.child.stdin.write('.exit\n');
      assert.is(await repl.exited(5000), 0, 'not held by the timer or the ask');
      assert.not.match(repl.output(), /is stopped|no reply from/, 'nothing printed after the session ended');
    } finally {
      repl.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

t('--memory: a temporary data dir, removed on exit; it opens with the banner alone, no log line', async () => {
  const dataDir = tempDir('troupe-repl-');
  const repl = await startReplChild({ DATA_DIR: dataDir }, ['--memory']);
  try {
    assert.is(
      repl.stderr(),
      '',
      'nothing logged at start (a development key for a session that keeps nothing needs no warning)',
    );
    assert.match(repl.output(), /^troupe REPL: actors on /, 'the banner comes first');
    const granted = await repl.type(
      "await ask(token, Token.issueToken({ clientId: 'troupe-client', username: 'john.doe', password: 'john-password' }))",
    );
    assert.match(granted, /ok: true,[\s\S]*accessToken: 'ey/, "the session's key signs tokens");
    const keys = await repl.type('.keys');
    assert.match(keys, /signing keys, from the key set in the store:\n {2}active {2}ES256 {2}[\w-]{43}\n/);
    assert.match(keys, /next: published in the JWKS and verifying/);
    assert.match(
      keys,
      /id_token keys, from the key set in the store:\n {2}active {2}RS256 {2}[\w-]{43}\n/,
      'the id_token lineage',
    );
    const dir = /actors on (\S+) \(temporary, removed on exit\)/.exec(repl.output())?.[1];
    assert.ok(dir, repl.output());
    assert.is.not(dir, dataDir);
    assert.ok(existsSync(join(dir, 'troupe.db')));
    await createUser(repl);
    repl.child.stdin.write('.exit\n');
    assert.is(await repl.exited(), 0);
    assert.is(existsSync(dir), false);
    assert.is(existsSync(join(dataDir, 'troupe.db')), false, 'the configured data dir was not used');
  } finally {
    repl.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t(
  '--memory with mongodb.uri set: the real database is never touched, the session works on its temporary file',
  async () => {
    const dataDir = tempDir('troupe-repl-');
    const port = await closedPort();
    let connections = 0;
    const database = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => database.listen(port, '127.0.0.1', resolve));
    const repl = await startReplChild(
      { DATA_DIR: dataDir, MONGODB_URI: `mongodb://127.0.0.1:${port}/troupe?serverSelectionTimeoutMS=300` },
      ['--memory'],
    );
    try {
      const granted = await repl.type(
        "await ask(token, Token.issueToken({ clientId: 'troupe-client', username: 'john.doe', password: 'john-password' }))",
      );
      assert.match(granted, /ok: true,[\s\S]*accessToken: 'ey/, 'the session serves from its temporary file');
      await createUser(repl);
      repl.child.stdin.write('.exit\n');
      assert.is(await repl.exited(), 0);
      assert.is(connections, 0, 'the REPL connected to the configured MongoDB');
    } finally {
      repl.child.kill('SIGKILL');
      await new Promise((resolve) => database.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

t.run();
