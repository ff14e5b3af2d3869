import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AsyncCompleter } from 'node:readline';
import type { REPLServer } from 'node:repl';
import { PassThrough } from 'node:stream';
import { runInContext, runInNewContext } from 'node:vm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Activity from '../actors/activity/protocol.ts';
import * as Employee from '../actors/employee/protocol.ts';
import * as User from '../actors/user/protocol.ts';
import { accountCursor, historyCursor, searchCursor } from '../src/cursors.ts';
import { loadConfig } from '../src/config.ts';
import type { ObjectIdString } from '../src/ids.ts';
import { createLogger } from '../src/logger.ts';
import { ask, type Request } from '../src/messaging/ask.ts';
import type { Ref } from '../src/messaging/nact.ts';
import { replGlobals } from '../src/repl/context.ts';
import { formatProtocol } from '../src/repl/commands.ts';
import { checkMessage } from '../src/repl/messages.ts';
import { exampleCalls, PROTOCOLS } from '../src/repl/protocols.ts';
import { awaitAsksBetweenActors } from '../src/repl/exit.ts';
import { INTERRUPTED, openRepl } from '../src/repl/session.ts';
import { startCore, type Core } from '../src/composition/core.ts';
import { createProbe } from './helpers/probe.ts';
import { tempDir } from './helpers/server.ts';
import { waitFor } from './helpers/wait.ts';

interface Ctx {
  dataDir: string;
  core: Core | undefined;
}
const t = suite<Ctx>('REPL session (in process)', { dataDir: '', core: undefined });

t.before(async (ctx) => {
  ctx.dataDir = tempDir('troupe-repl-session-');
  const config = loadConfig({
    properties: { 'data.dir': ctx.dataDir, 'logging.level': 'silent', 'data.sqlite.synchronous': 'NORMAL' },
  });
  ctx.core = await startCore(config, createLogger('silent'));
});

t.after(async (ctx) => {
  await ctx.core?.close();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

async function session(
  ctx: Ctx,
  options: { terminal?: boolean; historyFile?: string } = {},
): Promise<{ server: REPLServer; input: PassThrough; printed: () => string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const server = await openRepl({
    actors: ctx.core!.actors,
    input,
    output,
    terminal: options.terminal ?? false,
    colors: false,
    historyFile: options.historyFile,
  });
  return { server, input, printed: () => printed };
}

const complete = (server: REPLServer, line: string): Promise<string[]> =>
  new Promise((resolve, reject) => {
    (server.completer as AsyncCompleter)(line, (error, result) => (error ? reject(error) : resolve(result?.[0] ?? [])));
  });

t('Tab completes the refs, ask and tell, the protocols and their builders', async (ctx) => {
  const { server } = await session(ctx);
  try {
    assert.equal(await complete(server, 'Po'), ['Post']);
    assert.ok((await complete(server, 'us')).includes('users'));
    assert.ok((await complete(server, 'Emp')).includes('Employee'));
    assert.ok((await complete(server, 'emp')).includes('employees'));
    assert.ok((await complete(server, 'as')).includes('ask'));
    assert.ok((await complete(server, 'Activity.hi')).includes('Activity.history'));
    assert.ok((await complete(server, 'rec')).includes('record'));
  } finally {
    server.close();
  }
});

t('Tab after a protocol lists its builders only; .protocol completes and checks actor names', async (ctx) => {
  const { server, input, printed } = await session(ctx);
  try {
    assert.equal((await complete(server, 'User.')).filter(Boolean).sort(), [
      'User.delete',
      'User.get',
      'User.post',
      'User.put',
    ]);
    assert.not.ok((await complete(server, 'Token.')).some((c) => /schemas|examples/.test(c)));
    assert.equal(await complete(server, '.protocol em'), ['employees']);
    assert.equal((await complete(server, '.protocol ')).sort(), [
      'accounts',
      'activity',
      'employees',
      'token',
      'users',
    ]);
    input.write('.protocol payroll\n');
    await waitFor(() => printed().includes('no actor named'), 'the refusal');
    assert.match(printed(), /no actor named "payroll"; usage: \.protocol token\|accounts\|employees\|users\|activity/);
  } finally {
    server.close();
  }
});

t('Ctrl-C breaks a running evaluation, and Enter never takes a completion preview', async (ctx) => {
  const { server, input, printed } = await session(ctx, { terminal: true });
  try {
    assert.is((server as unknown as { breakEvalOnSigint: boolean }).breakEvalOnSigint, true);
    // With previews on, the REPL draws the rest of `users.type` after the cursor, and Enter takes it.
    input.write('users.typ');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.not.match(printed(), /\/\/ ?(e\b|'actor')/, 'no completion or value preview (drawn as a // comment)');
  } finally {
    server.close();
  }
});

t('Ctrl-C on a pending await prints one line, not the raw interruption error; the session goes on', async (ctx) => {
  const { server, input, printed } = await session(ctx, { terminal: true });
  try {
    const line = 'await new Promise((resolve) => setTimeout(resolve, 20_000))';
    input.write(`${line}\r`);
    // The line is echoed with its end as it is run: the await is pending from then on.
    await waitFor(() => printed().includes(`${line}\r\n`), 'the evaluation begun');
    input.write('\x03');
    await waitFor(() => printed().includes(INTERRUPTED), 'the interruption reported');
    assert.not.match(printed(), /ERR_SCRIPT_EXECUTION_INTERRUPTED|Uncaught/);
    assert.match(printed(), `${line}\r\n${INTERRUPTED}\n`);
    input.write('1 + 1\r');
    await waitFor(() => /\r\n2\n/.test(printed()), 'the next line evaluated');
    input.write("throw new Error('not an interruption')\r");
    await waitFor(() => printed().includes('Uncaught Error: not an interruption'), 'other errors as Node prints them');
  } finally {
    server.close();
  }
});

t('.exit waits only for asks between actors, and says so when it must', async () => {
  const said: string[] = [];
  let pending = 3;
  const waited = awaitAsksBetweenActors({
    pending: () => pending,
    ownPending: () => 1,
    timeoutMs: 10_000,
    say: (line) => said.push(line),
  });
  assert.equal(said, ['waiting for 2 asks between actors to finish (at most 10 s)…']);
  pending = 1; // only the session's own ask is left: no more waiting
  await waited;
  const quiet: string[] = [];
  await awaitAsksBetweenActors({ pending: () => 2, ownPending: () => 2, timeoutMs: 10_000, say: (l) => quiet.push(l) });
  assert.equal(quiet, [], 'nothing to wait for, nothing said');
});

t('history keeps a typed password or secret masked', async (ctx) => {
  const historyFile = join(ctx.dataDir, 'repl_history_secrets');
  const { server, input } = await session(ctx, { terminal: true, historyFile });
  try {
    input.write("Token.issueToken({ clientId: 'troupe-client', username: 'admin', password: 'admin-password' })\n");
    input.write('const client = { clientId: "troupe-client", clientSecret: "troupe-secret" }\n');
    await waitFor(() => readFileSync(historyFile, 'utf8').includes('clientSecret'), 'the history written');
    const kept = readFileSync(historyFile, 'utf8');
    assert.not.match(kept, /admin-password|troupe-secret/);
    assert.match(kept, /password: '\*\*\*'/);
    assert.match(kept, /clientSecret: "\*\*\*"/);
  } finally {
    server.close();
  }
});

t('short names exist only where one protocol owns the name', async (ctx) => {
  const { server } = await session(ctx);
  try {
    const g = server.context as Record<string, unknown>;
    assert.is(g['Get'], User.get);
    assert.is(g['Delete'], User.delete);
    assert.is(g['record'], Activity.record);
    assert.is(g['create'], Employee.create);
    assert.is(g['get'], undefined, 'User.get and Employee.get share the name');
    assert.is(g['USER_CREATED'], undefined, 'not a message builder');
    assert.is(g['post'], undefined, "UserActor's builders go by the seed's names");
  } finally {
    server.close();
  }
});

t('Employee.delete deletes as User.delete does; Employee.remove and remove stay as its older names', async (ctx) => {
  const { server } = await session(ctx);
  try {
    const g = server.context as Record<string, Record<string, unknown> | unknown>;
    const employee = g['Employee'] as Record<string, unknown>;
    assert.is(employee['delete'], Employee.remove);
    assert.is(employee['remove'], Employee.remove);
    assert.is(g['remove'], Employee.remove);
    assert.ok((await complete(server, 'Employee.')).includes('Employee.delete'));
    const run = (code: string): Promise<unknown> => runInContext(code, server.context) as Promise<unknown>;
    const made = (await run("ask(employees, Employee.create({ name: 'Short Lived', dateOfBirth: '1990-01-01' }))")) as {
      value: { id: string };
    };
    server.context['made'] = made;
    assert.equal(await run('ask(employees, Employee.delete({ id: made.value.id }))'), {
      ok: true,
      value: { id: made.value.id },
    });
    assert.match(formatProtocol('employees'), /Delete\s+await ask\(employees, Employee\.delete\(/);
  } finally {
    server.close();
  }
});

t('every example of .protocol is a message its actor answers', async (ctx) => {
  const { server } = await session(ctx);
  try {
    for (const entry of PROTOCOLS) {
      const ref = server.context[entry.ref] as Ref<unknown>;
      for (const [kind, example] of exampleCalls(entry)) {
        const build = runInContext(example, server.context) as Request<unknown, { ok: boolean }>;
        const reply = await ask(ref, build, 5000);
        assert.type(reply.ok, 'boolean', `${entry.ref} ${kind}: ${example}`);
        assert.is((build(ref) as { type: string }).type, kind, `${example} builds a ${kind}`);
      }
    }
  } finally {
    server.close();
  }
});

t('accounts are administered from the REPL with the messages HTTP sends', async (ctx) => {
  const { server } = await session(ctx);
  try {
    const run = (code: string): Promise<unknown> => runInContext(code, server.context) as Promise<unknown>;
    const made = (await run(
      "ask(accounts, Accounts.createAccount({ actor: 'ops', username: 'repl-made', password: 'repl-password', roles: ['USER'] }))",
    )) as { ok: boolean; value: { id: number; enabled: boolean } };
    assert.ok(made.ok && made.value.enabled);
    server.context['made'] = made;
    const disabled = (await run(
      "ask(accounts, Accounts.updateAccount({ actor: 'ops', id: made.value.id, enabled: false }))",
    )) as {
      value: { enabled: boolean };
    };
    assert.is(disabled.value.enabled, false);
    const page = (await run("ask(accounts, findAccounts({ usernamePrefix: 'repl-' }))")) as {
      value: { items: { username: string; enabled: boolean }[] };
    };
    assert.equal(page.value.items, [
      {
        id: made.value.id,
        username: 'repl-made',
        firstName: '',
        lastName: '',
        email: null,
        roles: ['USER'],
        enabled: false,
      },
    ]);
  } finally {
    server.close();
  }
});

t("a search page's `next` is the typed position the next search takes as `after`", async (ctx) => {
  const { server } = await session(ctx);
  try {
    const run = (code: string): Promise<unknown> => runInContext(code, server.context) as Promise<unknown>;
    for (const name of ['Paging Ann', 'Paging Bob'])
      await run(`ask(employees, Employee.create({ name: '${name}', dateOfBirth: '1990-01-01' }))`);
    const first = (await run("ask(employees, Employee.search({ name: 'paging', limit: 1 }))")) as {
      value: Employee.SearchPage;
    };
    assert.equal(first.value.next, { nameKey: 'paging ann', id: first.value.items[0]?.id });
    server.context['page'] = first;
    const second = (await run(
      "ask(employees, Employee.search({ name: 'paging', limit: 1, after: page.value.next }))",
    )) as { value: Employee.SearchPage };
    assert.equal([second.value.items.map((e) => e.name), second.value.next], [['Paging Bob'], null]);
  } finally {
    server.close();
  }
});

t('a page answers nextCursor as HTTP does, and the next page takes it where it takes a position', async (ctx) => {
  const { server } = await session(ctx);
  try {
    const run = async <T>(code: string): Promise<T> => (await runInContext(code, server.context)) as T;
    for (const name of ['Cursor Ann', 'Cursor Bob'])
      await run(`ask(employees, Employee.create({ name: '${name}', dateOfBirth: '1990-01-01' }))`);
    type Page = { value: Employee.SearchPage & { nextCursor: string | null } };
    const first = await run<Page>("ask(employees, Employee.search({ name: 'cursor', limit: 1 }))");
    assert.ok(first.value.next, 'next is kept, as it was');
    assert.is(first.value.nextCursor, searchCursor(first.value.next), "HTTP's cursor for the same position");
    server.context['page'] = first;
    const second = await run<Page>(
      "ask(employees, Employee.search({ name: 'cursor', limit: 1, after: page.value.nextCursor }))",
    );
    assert.equal([second.value.items.map((e) => e.name), second.value.nextCursor], [['Cursor Bob'], null]);

    const user = await run<{ value: { id: ObjectIdString } }>(
      "ask(users, Post({ name: 'Cursor Cy', email: 'cursor.cy@example.com' }))",
    );
    server.context['cy'] = user.value.id;
    await run("ask(activity, record({ userId: cy, type: 'LOGIN' }))");
    type History = { value: { activities: { type: string }[]; next: number | null; nextCursor: string | null } };
    const newest = await run<History>('ask(activity, Activity.history({ userId: cy, limit: 1 }))');
    assert.ok(newest.value.next !== null);
    assert.is(newest.value.nextCursor, historyCursor(user.value.id, newest.value.next));
    server.context['newest'] = newest;
    const older = await run<History>(
      'ask(activity, Activity.history({ userId: cy, limit: 1, before: newest.value.nextCursor }))',
    );
    assert.equal(
      older.value.activities.map((a) => a.type),
      ['USER_CREATED'],
    );

    type Accounts = { value: { items: { username: string }[]; nextAfterId: number | null; nextCursor: string | null } };
    const accounts = await run<Accounts>('ask(accounts, findAccounts({ limit: 1 }))');
    assert.ok(accounts.value.nextAfterId !== null);
    assert.is(accounts.value.nextCursor, accountCursor(accounts.value.nextAfterId));
    server.context['accountsPage'] = accounts;
    const after = await run<Accounts>(
      'ask(accounts, findAccounts({ limit: 1, afterId: accountsPage.value.nextCursor }))',
    );
    assert.is.not(after.value.items[0]?.username, accounts.value.items[0]?.username);
  } finally {
    server.close();
  }
});

t("every example of .protocol passes its protocol's check", (ctx) => {
  const context = replGlobals(ctx.core!.actors, { say: () => {}, show: () => {} });
  for (const entry of PROTOCOLS) {
    for (const [, example] of exampleCalls(entry)) {
      const checked = checkMessage(entry, runInNewContext(example, context) as Request<unknown, unknown>);
      assert.ok(checked.ok, `${example}: ${checked.ok ? '' : checked.line}`);
    }
  }
});

t('a message literal may leave out what its builder fills in', () => {
  const entry = (ref: string) => PROTOCOLS.find((p) => p.ref === ref)!;
  const listAccounts = checkMessage(entry('accounts'), (sender) => ({ type: 'ListAccounts', sender }));
  assert.equal(listAccounts.ok && listAccounts.request(undefined as never), {
    type: 'ListAccounts',
    includePasswordHash: false,
    sender: undefined,
  });
  const userId = '6b0233279e487a81ed925cc1';
  const record = checkMessage(entry('activity'), (sender) => ({
    type: 'Record',
    userId,
    activityType: 'LOGIN',
    sender,
  }));
  assert.equal(record.ok && record.request(undefined as never), {
    type: 'Record',
    userId,
    activityType: 'LOGIN',
    detail: {},
    sender: undefined,
  });
});

t('a refused message never reaches the actor; a valid one arrives as its schema gives it back', async (ctx) => {
  const users = createProbe<User.Command>(ctx.core!.actors.system);
  const said: string[] = [];
  const g = replGlobals({ ...ctx.core!.actors, users: users.ref }, { say: (line) => said.push(line), show: () => {} });
  const replAsk = g['ask'] as (ref: unknown, msg: unknown) => Promise<unknown> | undefined;
  const replTell = g['tell'] as (ref: unknown, msg: unknown) => void;
  assert.is(replAsk(users.ref, { type: 'Post', name: 'Ada' }), undefined, 'nothing to wait for');
  replTell(users.ref, User.post({ name: '', email: 'ada@example.com' }));
  replTell(users.ref, { type: 'Get', id: 42 });
  await users.expectNoMessage(50);
  assert.equal(said, [
    'not sent: Post is not valid (email: is required)',
    'not sent: Post is not valid (name: must not be empty)',
    'not sent: Get is not valid (id: must be an id of 24 hexadecimal characters)',
  ]);
  replTell(users.ref, User.put({ id: '6b0233279e487a81ed925cc1' as never, name: ' Ada King ', expectedVersion: 2 }));
  const sent = await users.expectMessage();
  assert.equal(
    { ...sent, sender: undefined },
    {
      type: 'Put',
      id: '6b0233279e487a81ed925cc1',
      name: 'Ada King',
      email: undefined,
      expectedVersion: 2,
      sender: undefined,
    },
  );
  assert.is(said.length, 3, 'a valid message prints nothing');
});

t(
  'a copied or hand-built ref is checked by the actor it reaches; internal messages and other actors take nothing',
  async (ctx) => {
    const users = createProbe<User.Command>(ctx.core!.actors.system);
    const token = createProbe<unknown>(ctx.core!.actors.system);
    const said: string[] = [];
    const g = replGlobals(
      { ...ctx.core!.actors, users: users.ref, token: token.ref as never },
      { say: (line) => said.push(line), show: () => {} },
    );
    const replTell = g['tell'] as (ref: unknown, msg: unknown) => void;
    replTell({ ...users.ref }, { type: 'Post', name: 'Ada' });
    replTell({ ...token.ref }, { type: 'WorkFailed', error: new Error('made up'), sender: token.ref });
    const system = (users.ref as unknown as { system: { name: string } }).system.name;
    replTell({ type: 'actor', system: { name: system }, path: { parts: ['repl-inbox'] } }, { type: 'Anything' });
    await users.expectNoMessage(50);
    await token.expectNoMessage(50);
    assert.equal(said, [
      'not sent: Post is not valid (email: is required)',
      `not sent: token takes ${Object.keys(PROTOCOLS[0]?.schemas ?? {}).join(' | ')}, not 'WorkFailed'`,
      'not sent: the ref reaches none of token, accounts, employees, users, activity',
    ]);
    const replAsk = g['ask'] as (ref: unknown, msg: unknown, timeoutMs: number) => Promise<unknown> | undefined;
    const asked = replAsk({ ...users.ref }, User.get({ id: '6b0233279e487a81ed925cc1' as never }), 100);
    assert.is((await users.expectMessage()).type, 'Get', 'a valid message to a copied ref is sent');
    await asked; // the probe does not answer
  },
);

t('ask takes a message literal and fills in the sender; a wrong ref is one clear error', async (ctx) => {
  const { server } = await session(ctx);
  try {
    const replAsk = server.context['ask'] as (ref: unknown, msg: unknown, timeoutMs?: number) => Promise<unknown>;
    const reply = await replAsk(server.context['users'], { type: 'Get', id: '000000000000000000000000' });
    assert.equal((reply as { code: string }).code, 'user.not_found');
    try {
      await replAsk('users', User.get({ id: '000000000000000000000000' as never }));
      assert.unreachable('a string is not a ref');
    } catch (error) {
      assert.instance(error, TypeError);
      assert.match((error as Error).message, 'ref must be an actor: token, accounts, employees, users, activity');
    }
  } finally {
    server.close();
  }
});

t('history persists in the given file between sessions', async (ctx) => {
  const historyFile = join(ctx.dataDir, 'repl_history');
  const first = await session(ctx, { terminal: true, historyFile });
  first.input.write('1 + 1\n');
  first.input.write('.protocol users\n');
  await waitFor(() => readFileSync(historyFile, 'utf8').includes('.protocol users'), 'the history written');
  first.server.close();
  const second = await session(ctx, { terminal: true, historyFile });
  try {
    assert.equal(
      (second.server as unknown as { history: string[] }).history.slice(0, 2),
      ['.protocol users', '1 + 1'],
      'newest first',
    );
  } finally {
    second.server.close();
  }
});

t.run();
