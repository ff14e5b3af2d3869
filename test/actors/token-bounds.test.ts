/**
 * What one account can make the service hold is bounded: spent refresh tokens of a login beyond a
 * window are deleted, live logins per account are capped (the least recently refreshed is ended),
 * and access tokens of one login revoked one by one are capped (past it, the login is ended).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { SPENT_WINDOW } from '../../src/stores/refresh-token-store.ts';
import { startTokenActor, type TokenActorSetup } from '../helpers/token-actor.ts';

interface Ctx {
  system: ActorSystem;
  hasher: PasswordHasher;
  setup: TokenActorSetup;
}
const ctx = {} as Ctx;
let clock = Date.now();
const t = suite('TokenActor: bounds per login and per account', ctx);

t.before(async () => {
  ctx.hasher = createPasswordHasher(2);
  ctx.system = startSystem('token-bounds');
  ctx.setup = await startTokenActor(ctx.system, {
    hasher: ctx.hasher,
    // Each read of the clock is a second later: logins and rotations are ordered in time.
    now: () => (clock += 1000),
    maxLoginsPerAccount: 3,
    maxRevokedTokensPerLogin: 3,
  });
});
t.after(async () => {
  stopSystem(ctx.system);
  await ctx.hasher.close();
  ctx.setup.db.close();
});

function value<T>(reply: { ok: true; value: T } | { ok: false; code: string; message: string }): T {
  if (!reply.ok) throw new Error(`expected a value, got ${reply.code}: ${reply.message}`);
  return reply.value;
}
const CLIENT_ID = 'troupe-client';
const login = async (username = 'john.doe', password = 'john-password'): Promise<Token.TokenGrant> =>
  value(
    await ask(ctx.setup.token, Token.issueToken({ clientId: CLIENT_ID, username, password, scope: undefined }), 5000),
  );
const refresh = (refreshToken: string) =>
  ask(ctx.setup.token, Token.refresh({ clientId: CLIENT_ID, refreshToken, scope: undefined }), 5000);
const revoke = async (token: string): Promise<void> => {
  value(await ask(ctx.setup.token, Token.revoke({ clientId: CLIENT_ID, token }), 5000));
};
const verifies = (token: string): Promise<boolean> =>
  ctx.setup.verify(token, clock).then(
    () => true,
    () => false,
  );
const loginOf = async (token: string): Promise<string> => (await ctx.setup.verify(token, clock)).loginId ?? '';
const rowsOf = (loginId: string): number =>
  ctx.setup.db
    .prepare<[string], number>('select count(*) from refresh_tokens where family_id = ?')
    .pluck()
    .get(loginId) ?? -1;

t(
  `40 refreshes of one login keep ${SPENT_WINDOW} spent tokens and the live one; reuse in the window still ends it`,
  async () => {
    const first = await login();
    const loginId = await loginOf(first.accessToken);
    const tokens = [first.refreshToken ?? ''];
    for (let i = 0; i < 40; i++) tokens.push(value(await refresh(tokens.at(-1) ?? '')).refreshToken ?? '');
    assert.is(rowsOf(loginId), SPENT_WINDOW + 1);
    // Older than the window: unknown, refused; the login goes on.
    const old = await refresh(tokens[0] ?? '');
    assert.equal(old.ok ? 'granted' : old.message, 'Invalid refresh token');
    const last = value(await refresh(tokens.at(-1) ?? ''));
    // In the window: reuse, and the whole login is ended.
    const reused = await refresh(tokens.at(-2) ?? '');
    assert.match(reused.ok ? 'granted' : reused.message, /already used/);
    assert.not.ok(await verifies(last.accessToken), 'the login survived reuse');
  },
);

t('a fourth live login of one account ends the least recently refreshed one', async () => {
  const logins = [await login('admin', 'admin-password'), await login('admin', 'admin-password')];
  logins.push(await login('admin', 'admin-password'));
  // The first is refreshed: now the second is the least recently refreshed.
  const refreshedFirst = value(await refresh(logins[0]?.refreshToken ?? ''));
  const fourth = await login('admin', 'admin-password');
  assert.not.ok(await verifies(logins[1]?.accessToken ?? ''), 'the oldest login still works');
  const again = await refresh(logins[1]?.refreshToken ?? '');
  assert.not.ok(again.ok, 'its refresh token still works');
  for (const live of [refreshedFirst, logins[2], fourth])
    assert.ok(await verifies(live?.accessToken ?? ''), 'a login within the bound was ended');
});

t('revoking a fourth access token of one login ends the whole login', async () => {
  const first = await login();
  const tokens = [first];
  for (let i = 0; i < 4; i++) tokens.push(value(await refresh(tokens.at(-1)?.refreshToken ?? '')));
  for (const g of tokens.slice(0, 3)) await revoke(g.accessToken);
  assert.ok(await verifies(tokens[3]?.accessToken ?? ''), 'three revocations: the login goes on');
  const loginId = await loginOf(tokens[3]?.accessToken ?? '');
  const entries = (): number =>
    ctx.setup.db.prepare<[], number>('select count(*) from revocations').pluck().get() ?? -1;
  const before = entries();
  await revoke(tokens[3]?.accessToken ?? '');
  assert.is(entries(), before + 1, 'one entry: the login');
  assert.not.ok(await verifies(tokens[4]?.accessToken ?? ''), 'the login goes on');
  assert.is(
    ctx.setup.db
      .prepare<[string], number>("select count(*) from revocations where kind = 'login' and id = ?")
      .pluck()
      .get(loginId),
    1,
  );
});

t.run();
