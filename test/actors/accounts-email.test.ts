/**
 * AccountActor and accounts' emails: CreateAccount and UpdateAccount take one, every account view
 * carries it (null when none), and one another account has is refused `account.email_taken`. The
 * REPL's schemas trim it and refuse what is not an address.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
import type { AccountEvent } from '../../actors/accounts/administration.ts';
import type { Request } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem, type ActorSystem, type Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import type { Db } from '../../src/stores/sqlite.ts';
import { askWithProbe } from '../helpers/probe.ts';
import { startTokenActor } from '../helpers/token-actor.ts';

interface Ctx {
  system: ActorSystem;
  db: Db;
  hasher: PasswordHasher;
  accounts: Ref<Accounts.Command>;
  events: AccountEvent[];
}
const ctx = {} as Ctx;
const t = suite('AccountActor: account emails', ctx);

t.before.each(async () => {
  ctx.hasher = createPasswordHasher(2);
  ctx.system = startSystem('accounts-email-test');
  const setup = await startTokenActor(ctx.system, { hasher: ctx.hasher });
  Object.assign(ctx, { accounts: setup.accounts, db: setup.db, events: setup.events });
});
t.after.each(async () => {
  stopSystem(ctx.system);
  await ctx.hasher.close();
  ctx.db.close();
});

const administer = <R>(request: Request<Accounts.Command, R>): Promise<R> =>
  askWithProbe(ctx.system, ctx.accounts, request);
function value<T>(reply: Reply<T, string>): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.code}: ${reply.message}`);
  return reply.value;
}
const refusal = (reply: Reply<unknown, string>): string => (reply.ok ? 'ok' : `${reply.code}: ${reply.message}`);
const create = (username: string, email?: string | null) =>
  administer(
    Accounts.createAccount({ actor: 'admin', username, password: 'juniper-password-1', email, roles: ['USER'] }),
  );
const update = (id: number, email: string | null | undefined, firstName?: string) =>
  administer(Accounts.updateAccount({ actor: 'admin', id, email, firstName }));

t('CreateAccount: the email in the reply and in GetAccount and FindAccounts; none is null', async () => {
  const jane = value(await create('jane', 'Jane@Example.com'));
  assert.equal(jane, {
    id: 3,
    username: 'jane',
    firstName: '',
    lastName: '',
    email: 'Jane@Example.com',
    roles: ['USER'],
    enabled: true,
  });
  assert.is(value(await administer(Accounts.getAccount({ id: jane.id }))).email, 'Jane@Example.com');
  assert.is(value(await create('kim')).email, null);
  assert.is(value(await create('lee', null)).email, null);
  const page = value(await administer(Accounts.findAccounts({ usernamePrefix: '' })));
  assert.equal(
    page.items.map((a) => [a.username, a.email]),
    [
      ['admin', null],
      ['john.doe', null],
      ['jane', 'Jane@Example.com'],
      ['kim', null],
      ['lee', null],
    ],
  );
  assert.not.match(JSON.stringify(ctx.events), /Example\.com/i, 'the event log names no email');
});

t('CreateAccount: an email another account has, in another case → account.email_taken, nothing made', async () => {
  value(await create('jane', 'jane@example.com'));
  const events = ctx.events.length;
  assert.is(refusal(await create('kim', 'JANE@example.COM')), 'account.email_taken: Another account has the email');
  assert.equal(value(await administer(Accounts.findAccounts({ usernamePrefix: 'kim' }))).items, []);
  assert.is(ctx.events.length, events, 'no account event');
});

t('UpdateAccount: sets, keeps, clears the email; another account email → account.email_taken', async () => {
  const jane = value(await create('jane'));
  const kim = value(await create('kim', 'kim@example.com'));
  assert.is(value(await update(jane.id, 'jane@example.com')).email, 'jane@example.com');
  assert.is(value(await update(jane.id, undefined, 'Jane')).email, 'jane@example.com', 'absent: kept');
  assert.equal(ctx.events.at(-2)?.detail?.['changed'], ['email'], 'the event names the field, not the value');
  assert.is(
    refusal(await update(jane.id, 'KIM@Example.com', 'Janet')),
    'account.email_taken: Another account has the email',
  );
  const after = value(await administer(Accounts.getAccount({ id: jane.id })));
  assert.equal([after.email, after.firstName], ['jane@example.com', 'Jane'], 'nothing of the change written');
  assert.is(value(await update(jane.id, null)).email, null);
  assert.is(value(await update(kim.id, null)).email, null, 'two accounts without an email');
  assert.is(value(await update(jane.id, 'Kim@Example.com')).email, 'Kim@Example.com', 'a cleared email is free');
  assert.is(refusal(await update(99, 'x@example.com')), 'account.not_found: No such account');
});

t('the REPL schemas: the email trimmed, null allowed, absent on CreateAccount null, not an address refused', () => {
  const base = { actor: 'admin', username: 'jane', password: 'x', firstName: '', lastName: '', roles: [] };
  assert.is(Accounts.schemas.CreateAccount.parse({ ...base, email: ' jane@example.com ' }).email, 'jane@example.com');
  assert.is(Accounts.schemas.CreateAccount.parse(base).email, null);
  assert.is(Accounts.schemas.UpdateAccount.parse({ actor: 'admin', id: 3, email: null }).email, null);
  assert.is(Accounts.schemas.UpdateAccount.parse({ actor: 'admin', id: 3 }).email, undefined);
  for (const email of ['jane', 'jane@', 'ü@example.com', `${'j'.repeat(250)}@example.com`])
    assert.not.ok(Accounts.schemas.CreateAccount.safeParse({ ...base, email }).success, email);
  assert.not.ok(Accounts.schemas.UpdateAccount.safeParse({ actor: 'admin', id: 3, email: '' }).success);
});

t.run();
