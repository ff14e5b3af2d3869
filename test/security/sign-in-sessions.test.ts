/**
 * Sign-in sessions over a real SQLite file: a session counts while it is neither ended nor expired
 * and its account still exists, enabled, at the security version of the sign-in; a second set of
 * stores on the same file (another process) sees each start and end at once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSessions } from '../../src/security/sign-in-sessions.ts';
import type { AccountRecord } from '../../src/stores/account-store.ts';
import { openSqliteStores } from '../../src/stores/stores.sqlite.ts';
import { tempDir } from '../helpers/server.ts';

const HASH = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';

async function setUp() {
  const dir = tempDir('sessions-');
  const open = () => openSqliteStores(dir, { synchronous: 'NORMAL', openTimeoutMs: 5000 });
  const stores = open();
  const other = open();
  await stores.prepare(async () => {});
  await stores.accounts.createRole({ roleName: 'USER', description: 'user' });
  const created = await stores.accounts.createAccount({
    username: 'ada',
    password: HASH,
    firstName: 'Ada',
    lastName: 'Lovelace',
    roles: ['USER'],
    enabled: true,
    updatedAt: 1,
  });
  if (typeof created === 'string') throw new Error(created);
  let now = 1_000_000_000;
  const clock = () => now;
  const sessions = createSessions({ store: stores.sessions, accounts: stores.accounts, maxAge: 3600, now: clock });
  const elsewhere = createSessions({ store: other.sessions, accounts: other.accounts, maxAge: 3600, now: clock });
  const later = (ms: number) => {
    now += ms;
  };
  const close = async () => {
    await stores.close();
    await other.close();
  };
  return { stores, account: created as AccountRecord, sessions, elsewhere, later, close };
}

test('a session started in one process signs in through another, with the account as read now', async () => {
  const s = await setUp();
  const { value, expiresAt } = await s.sessions.start(s.account, 999_999);
  assert.is(expiresAt, 999_999 + 3600);
  const found = await s.elsewhere.current(value);
  assert.is(found?.account.id, s.account.id);
  assert.is(found?.session.authTime, 999_999);
  assert.is(await s.sessions.current(undefined), undefined);
  assert.is(await s.sessions.current('not-a-session'), undefined);
  assert.is(await s.sessions.current('A'.repeat(43)), undefined, 'well formed, but no such session');
  await s.close();
});

test('a session ends in every process at once, and only once', async () => {
  const s = await setUp();
  const { value } = await s.sessions.start(s.account, 1_000_000);
  assert.is((await s.elsewhere.end(value))?.accountId, s.account.id);
  assert.is(await s.sessions.current(value), undefined);
  assert.is(await s.sessions.end(value), undefined, 'ended already');
  await s.close();
});

test('a session ends by itself at its max age from the sign-in', async () => {
  const s = await setUp();
  const { value } = await s.sessions.start(s.account, 1_000_000);
  s.later(3599_000);
  assert.ok(await s.sessions.current(value));
  s.later(1_000);
  assert.is(await s.sessions.current(value), undefined);
  await s.close();
});

test('an account change that ends its logins ends its sessions: disabled, logins ended, deleted', async () => {
  const s = await setUp();
  const first = await s.sessions.start(s.account, 1_000_000);
  await s.stores.accounts.updateAccount(s.account.id, { enabled: false }, 'ADMIN', 2);
  assert.is(await s.elsewhere.current(first.value), undefined, 'disabled');
  await s.stores.accounts.updateAccount(s.account.id, { enabled: true }, 'ADMIN', 3);
  assert.is(await s.elsewhere.current(first.value), undefined, 'enabled again: still a later version');
  const again = await s.stores.accounts.findById(s.account.id);
  if (!again) throw new Error('no account');
  const second = await s.sessions.start(again, 1_000_000);
  assert.ok(await s.elsewhere.current(second.value));
  await s.stores.accounts.endLogins(s.account.id);
  assert.is(await s.elsewhere.current(second.value), undefined, 'every login ended');
  const third = await s.sessions.start((await s.stores.accounts.findById(s.account.id)) ?? again, 1_000_000);
  await s.stores.accounts.deleteAccount(s.account.id, 'ADMIN');
  assert.is(await s.elsewhere.current(third.value), undefined, 'deleted');
  await s.close();
});

test("ending an account's sessions ends them all; listing shows those going", async () => {
  const s = await setUp();
  const a = await s.sessions.start(s.account, 1_000_000);
  await s.sessions.start(s.account, 1_000_000);
  assert.is((await s.elsewhere.list(s.account.id)).length, 2);
  assert.is(await s.elsewhere.endForAccount(s.account.id), 2);
  assert.is(await s.sessions.current(a.value), undefined);
  assert.equal(await s.sessions.list(s.account.id), []);
  await s.close();
});

test.run();
