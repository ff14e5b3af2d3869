import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
import * as Token from '../../actors/token/protocol.ts';
import type { AccountEvent } from '../../actors/accounts/administration.ts';
import type { Request } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem, type ActorSystem, type Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { createTokenVerifier } from '../../src/security/jwt.ts';
import type { LoginThrottle } from '../../src/security/login-throttle.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import type { Db } from '../../src/stores/sqlite.ts';
import { askWithProbe } from '../helpers/probe.ts';
import { startTokenActor } from '../helpers/token-actor.ts';

interface Ctx {
  system: ActorSystem;
  db: Db;
  hasher: PasswordHasher;
  token: Ref<Token.Command>;
  accounts: Ref<Accounts.Command>;
  clock: { now: number };
  verify: ReturnType<typeof createTokenVerifier>;
  events: AccountEvent[];
  throttle: LoginThrottle;
}
const ctx = {} as Ctx;
const t = suite('TokenActor: account administration', ctx);

t.before.each(async () => {
  ctx.hasher = createPasswordHasher(2);
  ctx.clock = { now: Date.now() };
  ctx.system = startSystem('token-accounts-test');
  const setup = await startTokenActor(ctx.system, { hasher: ctx.hasher, now: () => ctx.clock.now });
  Object.assign(ctx, {
    token: setup.token,
    accounts: setup.accounts,
    db: setup.db,
    verify: setup.verify,
    events: setup.events,
  });
  ctx.throttle = setup.throttle;
});

t.after.each(async () => {
  stopSystem(ctx.system);
  await ctx.hasher.close();
  ctx.db.close();
});

const send = <R>(request: Request<Token.Command, R>): Promise<R> => askWithProbe(ctx.system, ctx.token, request);
const administer = <R>(request: Request<Accounts.Command, R>): Promise<R> =>
  askWithProbe(ctx.system, ctx.accounts, request);
function value<T>(reply: Reply<T, string>): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.code}: ${reply.message}`);
  return reply.value;
}
const code = (reply: Reply<unknown, string>): string => (reply.ok ? 'ok' : reply.code);
const login = (username: string, password: string) =>
  send(Token.issueToken({ clientId: 'troupe-client', username, password }));
const accepted = async (accessToken: string): Promise<boolean> =>
  ctx.verify(accessToken, ctx.clock.now).then(
    () => true,
    () => false,
  );
const introspect = (token: string) => send(Token.introspect({ clientId: 'troupe-client', token }));
const later = (seconds: number): void => {
  ctx.clock.now += seconds * 1000;
};
const create = (username: string, roles = ['USER'], password = 'juniper-password-1') =>
  administer(Accounts.createAccount({ actor: 'admin', username, password, roles }));

t('CreateAccount: the account logs in; a taken username, an unknown role and a bad password are refused', async () => {
  const jane = value(await create('jane'));
  assert.equal(jane, {
    id: 3,
    username: 'jane',
    firstName: '',
    lastName: '',
    email: null,
    roles: ['USER'],
    enabled: true,
  });
  assert.ok(value(await login('jane', 'juniper-password-1')).accessToken);
  assert.is(code(await create('jane')), 'account.username_taken');
  const unknown = await create('kim', ['NOPE']);
  assert.is(code(unknown), 'role.unknown');
  assert.is(unknown.ok ? '' : unknown.message, 'A role named "NOPE" is not a role');
  const both = await create('kim', ['USER', 'NOPE', 'GHOST', 'NOPE']);
  assert.is(both.ok ? '' : both.message, 'Roles named "NOPE", "GHOST" are not roles');
  assert.is(code(await create('kim', ['USER'], 'short')), 'password.invalid');
  assert.is(code(await create('kim', ['USER'], 'x'.repeat(73))), 'password.invalid');
  assert.is(code(await create('kim', ['USER'], 'é'.repeat(37))), 'password.invalid', '37 characters, 74 bytes');
  assert.is(code(await administer(Accounts.getAccount({ id: 4 }))), 'account.not_found');
  assert.equal(ctx.events, [
    { action: 'account.created', actor: 'admin', target: 'jane', detail: { roles: ['USER'] } },
  ]);
  assert.not.match(JSON.stringify(ctx.events), /password-1|\$2[aby]\$/);
});

t(
  'CreateAccount named like a registered client (canonical forms) → account.username_reserved, nothing made',
  async () => {
    // The suite's one client is troupe-client: a token of its own would carry sub "troupe-client".
    for (const username of ['troupe-client', 'Troupe-Client', 'ＴＲＯＵＰＥ-ＣＬＩＥＮＴ']) {
      const refused = await create(username);
      assert.is(code(refused), 'account.username_reserved', username);
      assert.is(refused.ok ? '' : refused.message, "The username is a registered client's id");
    }
    assert.equal(ctx.events, [], 'no account event');
    const names = value(await administer(Accounts.listAccounts())).map((a) => a.username);
    assert.not.ok(
      names.some((n) => n.toLowerCase().includes('troupe')),
      names.join(),
    );
    assert.ok(value(await create('troupe-client-2')), 'a name that only starts like a client is fine');
  },
);

t(
  'disabling: every token of the account is refused at once, and its login gets the wrong-password answer',
  async () => {
    const jane = value(await create('jane'));
    const grant = value(await login('jane', 'juniper-password-1'));
    assert.ok(await accepted(grant.accessToken));
    value(await administer(Accounts.updateAccount({ actor: 'admin', id: jane.id, enabled: false })));
    assert.is(await accepted(grant.accessToken), false);
    assert.equal(value(await introspect(grant.accessToken)), { active: false });
    assert.equal(value(await introspect(grant.refreshToken ?? '')), { active: false });
    const refreshed = await send(Token.refresh({ clientId: 'troupe-client', refreshToken: grant.refreshToken ?? '' }));
    assert.is(code(refreshed), 'grant.invalid');
    later(2);
    const disabled = await login('jane', 'juniper-password-1');
    const wrong = await login('jane', 'not-her-password');
    assert.equal(disabled, wrong);
    value(await administer(Accounts.updateAccount({ actor: 'admin', id: jane.id, enabled: true })));
    later(1);
    assert.ok(
      await accepted(value(await login('jane', 'juniper-password-1')).accessToken),
      'enabled again, new logins work',
    );
  },
);

t('a role change refuses the older access tokens; a refresh then carries the new roles', async () => {
  const jane = value(await create('jane'));
  const grant = value(await login('jane', 'juniper-password-1'));
  later(1);
  value(await administer(Accounts.updateAccount({ actor: 'admin', id: jane.id, roles: ['USER', 'ADMIN'] })));
  assert.is(await accepted(grant.accessToken), false);
  later(1);
  const next = value(await send(Token.refresh({ clientId: 'troupe-client', refreshToken: grant.refreshToken ?? '' })));
  const principal = await ctx.verify(next.accessToken, ctx.clock.now);
  assert.equal([...principal.authorities].sort(), ['ADMIN', 'USER']);
  assert.equal(ctx.events.at(-1)?.detail, { changed: ['roles'], roles: ['ADMIN', 'USER'], enabled: true });
});

t('the last enabled ADMIN is never disabled, deleted or demoted', async () => {
  const john = 2;
  value(await administer(Accounts.updateAccount({ actor: 'admin', id: john, roles: ['USER'] })));
  assert.is(
    code(await administer(Accounts.updateAccount({ actor: 'admin', id: 1, enabled: false }))),
    'account.last_admin',
  );
  assert.is(
    code(await administer(Accounts.updateAccount({ actor: 'admin', id: 1, roles: ['USER'] }))),
    'account.last_admin',
  );
  assert.is(code(await administer(Accounts.deleteAccount({ actor: 'admin', id: 1 }))), 'account.last_admin');
  assert.is(value(await administer(Accounts.getAccount({ id: 1 }))).enabled, true);
});

t('SetPassword and DeleteAccount end every login; the new password logs in', async () => {
  const jane = value(await create('jane'));
  const first = value(await login('jane', 'juniper-password-1'));
  value(await administer(Accounts.setPassword({ actor: 'admin', id: jane.id, password: 'juniper-password-2' })));
  assert.is(await accepted(first.accessToken), false);
  assert.equal(value(await introspect(first.refreshToken ?? '')), { active: false });
  later(1);
  assert.is(code(await login('jane', 'juniper-password-1')), 'grant.invalid');
  const second = value(await login('jane', 'juniper-password-2'));
  value(await administer(Accounts.deleteAccount({ actor: 'admin', id: jane.id })));
  assert.is(await accepted(second.accessToken), false);
  assert.is(code(await administer(Accounts.deleteAccount({ actor: 'admin', id: jane.id }))), 'account.not_found');
  assert.equal(
    ctx.events.map((e) => e.action),
    ['account.created', 'account.password_set', 'account.deleted'],
  );
});

t('ListLogins and EndLogins: one login ends, the other stays; an unknown sid is login.not_found', async () => {
  const jane = value(await create('jane'));
  const a = value(await login('jane', 'juniper-password-1'));
  const b = value(await login('jane', 'juniper-password-1'));
  const logins = value(await administer(Accounts.listLogins({ id: jane.id })));
  assert.is(logins.length, 2);
  assert.equal(Object.keys(logins[0] ?? {}), ['sid', 'clientId', 'createdAt', 'lastRefreshedAt', 'expiresAt']);
  const loginOfA = (await ctx.verify(a.accessToken, ctx.clock.now)).loginId ?? '';
  value(await administer(Accounts.endLogins({ actor: 'admin', id: jane.id, loginId: loginOfA })));
  assert.is(await accepted(a.accessToken), false);
  assert.ok(await accepted(b.accessToken));
  assert.is(value(await administer(Accounts.listLogins({ id: jane.id }))).length, 1);
  assert.is(
    code(await administer(Accounts.endLogins({ actor: 'admin', id: jane.id, loginId: loginOfA }))),
    'login.not_found',
  );
  value(await administer(Accounts.endLogins({ actor: 'admin', id: jane.id })));
  assert.is(await accepted(b.accessToken), false);
  assert.equal(value(await administer(Accounts.listLogins({ id: jane.id }))), []);
});

t(
  'ChangeOwnPassword: needs the current password; ends the other logins, keeps this one through its refresh',
  async () => {
    value(await create('jane'));
    const mine = value(await login('jane', 'juniper-password-1'));
    const other = value(await login('jane', 'juniper-password-1'));
    const { loginId, accountId, accountVersion } = await ctx.verify(mine.accessToken, ctx.clock.now);
    assert.ok(accountId !== undefined && accountVersion !== undefined);
    const change = (currentPassword: string, newPassword: string) =>
      administer(Accounts.changeOwnPassword({ accountId, accountVersion, loginId, currentPassword, newPassword }));
    assert.is(code(await change('wrong-password', 'juniper-password-2')), 'password.incorrect');
    assert.is(code(await change('juniper-password-1', 'short')), 'password.invalid');
    value(await change('juniper-password-1', 'juniper-password-2'));
    // The version moved: every access token minted before is refused, this login's too ...
    assert.is(await accepted(mine.accessToken), false);
    assert.is(await accepted(other.accessToken), false);
    // ... but this login goes on: its refresh token is carried to the new version, the other's is not.
    const refresh = (grant: Token.TokenGrant) =>
      send(Token.refresh({ clientId: 'troupe-client', refreshToken: grant.refreshToken ?? '' }));
    assert.ok(await accepted(value(await refresh(mine)).accessToken));
    assert.is(code(await refresh(other)), 'grant.invalid');
    assert.is(ctx.events.at(-1)?.action, 'account.password_changed');
  },
);

t('ClearLockout forgets the failures counted against the account', async () => {
  for (let i = 0; i < 3; i++) {
    const admission = await ctx.throttle.begin('john.doe', '10.0.0.1');
    assert.ok('attempt' in admission);
    await admission.attempt.failed();
  }
  assert.ok('retryAfter' in (await ctx.throttle.begin('john.doe', '10.0.0.2')));
  value(await administer(Accounts.clearLockout({ actor: 'admin', id: 2 })));
  assert.ok('attempt' in (await ctx.throttle.begin('john.doe', '10.0.0.2')));
});

t('FindAccounts pages by id with a username prefix; roles are listed and created once', async () => {
  for (const u of ['jane', 'jake', 'kim']) value(await create(u));
  const first = value(await administer(Accounts.findAccounts({ usernamePrefix: 'ja', limit: 1 })));
  assert.equal(
    first.items.map((a) => a.username),
    ['jane'],
  );
  const rest = value(
    await administer(Accounts.findAccounts({ usernamePrefix: 'ja', afterId: first.nextAfterId ?? 0 })),
  );
  assert.equal(rest, {
    items: [{ id: 4, username: 'jake', firstName: '', lastName: '', email: null, roles: ['USER'], enabled: true }],
    nextAfterId: null,
  });
  value(await administer(Accounts.createRole({ actor: 'admin', roleName: 'AUDITOR', description: 'reads logs' })));
  assert.is(code(await administer(Accounts.createRole({ actor: 'admin', roleName: 'AUDITOR' }))), 'role.name_taken');
  assert.equal(
    value(await administer(Accounts.listRoles())).map((r) => r.roleName),
    ['ADMIN', 'USER', 'AUDITOR'],
  );
});

t.run();
