/**
 * AccountActor's GetProfile, what an account's own token reads of it (OpenID UserInfo): the
 * profile of the account at the token's security version, `account.not_found` once the account is
 * gone, disabled or changed; `updatedAt` is the actor's time of each profile change.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
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
  clock: { now: number };
}
const ctx = {} as Ctx;
const t = suite('AccountActor: GetProfile', ctx);

/** The actor's clock at the start of each test, ms: a whole second. */
const START = 1_700_000_000_000;

t.before.each(async () => {
  ctx.hasher = createPasswordHasher(2);
  ctx.clock = { now: START };
  ctx.system = startSystem('accounts-profile-test');
  const setup = await startTokenActor(ctx.system, { hasher: ctx.hasher, now: () => ctx.clock.now });
  Object.assign(ctx, { accounts: setup.accounts, db: setup.db });
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
const code = (reply: Reply<unknown, string>): string => (reply.ok ? 'ok' : reply.code);
const profile = (accountId: number, accountVersion = 0) =>
  administer(Accounts.getProfile({ accountId, accountVersion }));
const create = () =>
  administer(
    Accounts.createAccount({
      actor: 'admin',
      username: 'jane',
      password: 'juniper-password-1',
      firstName: 'Jane',
      lastName: 'Doe',
      email: 'jane@example.com',
      roles: ['USER', 'ADMIN'],
    }),
  );

t('GetProfile: the profile, never the roles; updatedAt is the time the account was made', async () => {
  const jane = value(await create());
  assert.equal(value(await profile(jane.id)), {
    id: jane.id,
    username: 'jane',
    firstName: 'Jane',
    lastName: 'Doe',
    email: 'jane@example.com',
    updatedAt: START / 1000,
  });
});

t('GetProfile: a change of the profile takes the actor’s time; one of the roles alone does not', async () => {
  const jane = value(await create());
  ctx.clock.now += 5000;
  value(await administer(Accounts.updateAccount({ actor: 'admin', id: jane.id, lastName: 'Roe' })));
  assert.is(value(await profile(jane.id)).updatedAt, START / 1000 + 5);
  ctx.clock.now += 5000;
  value(await administer(Accounts.updateAccount({ actor: 'admin', id: jane.id, roles: ['USER'] })));
  assert.is(code(await profile(jane.id, 0)), 'account.not_found', 'the role change moved the version');
  assert.is(value(await profile(jane.id, 1)).updatedAt, START / 1000 + 5);
});

t('GetProfile: another security version, a disabled, deleted or unknown account → account.not_found', async () => {
  const jane = value(await create());
  assert.is(code(await profile(jane.id, 1)), 'account.not_found', 'a version it never had');
  assert.is(code(await profile(jane.id + 100)), 'account.not_found', 'unknown');
  value(await administer(Accounts.updateAccount({ actor: 'admin', id: jane.id, enabled: false })));
  assert.is(code(await profile(jane.id, 1)), 'account.not_found', 'disabled, at its new version');
  value(await administer(Accounts.updateAccount({ actor: 'admin', id: jane.id, enabled: true })));
  assert.is(value(await profile(jane.id, 2)).username, 'jane', 'enabled again, at its new version');
  value(await administer(Accounts.deleteAccount({ actor: 'admin', id: jane.id })));
  assert.is(code(await profile(jane.id, 2)), 'account.not_found', 'deleted');
});

t.run();
