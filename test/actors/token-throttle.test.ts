/**
 * The login throttle inside the actors that decide logins: TokenActor's password grant and
 * sign-in, AccountActor's own-password change. Each login is counted from the address its message
 * names before any BCrypt work, refused past the limits (3 failures per user here) as
 * `login.throttled`, and settled with its outcome: a match gives the count back, a wrong password
 * keeps it, a login never judged (a crash, a store out of reach, a refused scope) gives it back.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
import * as Token from '../../actors/token/protocol.ts';
import { ask, type Request } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem, type ActorSystem, type Ref } from '../../src/messaging/nact.ts';
import { UNADDRESSED } from '../../src/security/login-attempts.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import type { AccountStore } from '../../src/stores/account-store.ts';
import { gate, type Gate } from '../helpers/gate.ts';
import { startTokenActor, type TokenActorSetup } from '../helpers/token-actor.ts';

/** What the suite does to the hasher's next comparisons, and how many it made. */
interface Verifies {
  count: number;
  /** Comparisons that fail (a worker that died) instead of answering. */
  failing: number;
  /** The next comparisons wait at these gates, one each, once their verdict is known. */
  holds: Gate[];
}

interface Ctx {
  system: ActorSystem;
  pool: PasswordHasher;
  token: Ref<Token.Command>;
  accounts: Ref<Accounts.Command>;
  verify: TokenActorSetup['verify'];
  verifies: Verifies;
  /** Reads of an account for a login that fail, as a store out of reach does. */
  failingReads: number;
  close: () => void;
}

const ctx = {} as Ctx;
const t = suite('login throttle in TokenActor and AccountActor', ctx);

t.before(() => {
  ctx.pool = createPasswordHasher(2);
});
t.after(async () => {
  await ctx.pool.close();
});

t.before.each(async () => {
  ctx.verifies = { count: 0, failing: 0, holds: [] };
  ctx.failingReads = 0;
  ctx.system = startSystem('login-throttle-test');
  const verifies = ctx.verifies;
  const hasher: PasswordHasher = {
    ...ctx.pool,
    async verify(password, hash) {
      verifies.count++;
      if (verifies.failing > 0) {
        verifies.failing--;
        throw new Error('the worker died');
      }
      const hold = verifies.holds.shift();
      const verdict = await ctx.pool.verify(password, hash);
      await hold?.wait();
      return verdict;
    },
  };
  const accounts = (store: AccountStore): AccountStore => ({
    ...store,
    async findByUsername(username) {
      if (ctx.failingReads > 0) {
        ctx.failingReads--;
        throw new Error('the read failed');
      }
      return store.findByUsername(username);
    },
  });
  const setup = await startTokenActor(ctx.system, { hasher, accounts });
  ctx.token = setup.token;
  ctx.accounts = setup.accounts;
  ctx.verify = setup.verify;
  ctx.close = () => setup.db.close();
});
t.after.each(() => {
  stopSystem(ctx.system);
  ctx.close();
});

const send = <R>(request: Request<Token.Command, R>): Promise<R> => ask(ctx.token, request, 10_000);
/** A password grant of john.doe from `address` (null: a message that names none, as the REPL's). */
const login = (password: string, address: string | null = '10.0.0.1', scope?: string[]) =>
  send(
    Token.issueToken({
      clientId: 'troupe-client',
      username: 'john.doe',
      password,
      scope,
      ...(address === null ? {} : { address }),
    }),
  );
const signIn = (password: string, address: string) =>
  send(
    Token.authorize({
      clientId: 'troupe-client',
      redirectUri: 'https://app.example/callback',
      username: 'john.doe',
      password,
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      address,
    }),
  );
const codeOf = (reply: { ok: boolean; code?: string }): string => (reply.ok ? 'ok' : (reply.code ?? ''));

t('a password grant is refused after 3 failures from its address, before any BCrypt work', async () => {
  for (let i = 0; i < 3; i++) assert.is(codeOf(await login('wrong-password')), 'grant.invalid');
  assert.is(ctx.verifies.count, 3);
  const refused = await login('john-password');
  assert.is(codeOf(refused), 'login.throttled');
  assert.ok(!refused.ok && 'retryAfter' in refused && refused.retryAfter > 0, 'the seconds to wait');
  assert.is(ctx.verifies.count, 3, 'no password compared for a refused login');
  // The sign-in counts in the same counts: refused as well.
  assert.is(codeOf(await signIn('john-password', '10.0.0.1')), 'login.throttled');
  assert.is(ctx.verifies.count, 3);
});

t('a success settles: its count is given back, so logins that match are never throttled', async () => {
  for (let i = 0; i < 6; i++) assert.is(codeOf(await login('john-password')), 'ok', `login ${i + 1}`);
  // And the address is known for the user: failures from elsewhere do not hold it back.
  for (let i = 0; i < 3; i++) assert.is(codeOf(await login('wrong-password', '10.0.0.2')), 'grant.invalid');
  assert.is(codeOf(await login('john-password', '10.0.0.3')), 'login.throttled', 'an address never seen');
  assert.is(codeOf(await login('john-password', '10.0.0.1')), 'ok', 'the address that logged in');
});

t('a login never judged gives its count back: a failed comparison, a failed read, a refused scope', async () => {
  ctx.verifies.failing = 4;
  for (let i = 0; i < 4; i++) assert.is(codeOf(await login('wrong-password')), 'internal', `comparison ${i + 1}`);
  ctx.failingReads = 4;
  for (let i = 0; i < 4; i++) assert.is(codeOf(await login('wrong-password')), 'internal', `read ${i + 1}`);
  for (let i = 0; i < 4; i++) assert.is(codeOf(await login('wrong-password', '10.0.0.1', ['admin'])), 'scope.invalid');
  assert.is(codeOf(await login('john-password')), 'ok', 'none of them counted');
});

t(
  'concurrent guesses are counted before any is judged: the fourth is refused at once, for the guesses in flight',
  async () => {
    const holds = [gate(), gate(), gate()];
    ctx.verifies.holds.push(...holds);
    const guesses = [login('wrong-1'), login('wrong-2'), login('wrong-3')];
    await Promise.all(holds.map((hold) => hold.reached));
    const refused = await login('john-password');
    assert.is(codeOf(refused), 'login.throttled', 'while the three are being compared');
    assert.ok(!refused.ok && 'retryAfter' in refused);
    assert.is(refused.message, 'Too many logins in flight; retry in 2 seconds', 'none has failed yet');
    assert.is(refused.retryAfter, 2);
    for (const hold of holds) hold.release();
    assert.equal((await Promise.all(guesses)).map(codeOf), ['grant.invalid', 'grant.invalid', 'grant.invalid']);
    const afterwards = await login('john-password');
    assert.ok(!afterwards.ok && 'retryAfter' in afterwards);
    assert.match(afterwards.message, /^Too many failed logins; retry in \d+ seconds$/, 'now they have failed');
    assert.ok(afterwards.retryAfter > 2);
  },
);

t('identical logins in flight share one count and one BCrypt check; each gets its own tokens', async () => {
  const hold = gate();
  ctx.verifies.holds.push(hold);
  const logins = Array.from({ length: 20 }, () => login('john-password'));
  await hold.reached;
  hold.release();
  const replies = await Promise.all(logins);
  assert.equal(replies.map(codeOf), Array<string>(20).fill('ok'), 'none refused as a failure or in flight');
  assert.is(ctx.verifies.count, 1, 'one comparison for twenty identical logins');
  const tokens = new Set(replies.map((r) => (r.ok && 'accessToken' in r.value ? r.value.accessToken : '')));
  assert.is(tokens.size, 20, 'each login is its own');
});

t('identical wrong guesses in flight are one failure, counted once', async () => {
  const hold = gate();
  ctx.verifies.holds.push(hold);
  const guesses = Array.from({ length: 10 }, () => login('wrong-password'));
  await hold.reached;
  hold.release();
  assert.equal((await Promise.all(guesses)).map(codeOf), Array<string>(10).fill('grant.invalid'));
  assert.is(ctx.verifies.count, 1);
  for (let i = 0; i < 2; i++) assert.is(codeOf(await login(`wrong-${i}`)), 'grant.invalid', 'two failures left');
  assert.is(codeOf(await login('john-password')), 'login.throttled');
});

t('a message without an address (the REPL) is counted as coming from the one address UNADDRESSED', async () => {
  assert.is(codeOf(await login('john-password', null)), 'ok');
  for (let i = 0; i < 3; i++) assert.is(codeOf(await login('wrong-password', null)), 'grant.invalid');
  assert.is(codeOf(await login('john-password', null)), 'login.throttled');
  assert.is(codeOf(await login('john-password', UNADDRESSED)), 'login.throttled', 'one address');
  // It had logged in as the user, so its failures held back only itself.
  assert.is(codeOf(await login('john-password', '10.0.0.1')), 'ok');
});

t('AccountActor: a wrong current password is a failed login; past the limits it is throttled', async () => {
  const grant = await login('john-password');
  assert.ok(grant.ok);
  const { accountId, accountVersion } = await ctx.verify(grant.value.accessToken);
  assert.ok(accountId !== undefined && accountVersion !== undefined);
  const account = { accountId, accountVersion, loginId: undefined };
  const change = (currentPassword: string, address = '10.0.0.9') =>
    ask(
      ctx.accounts,
      Accounts.changeOwnPassword({ ...account, currentPassword, newPassword: 'a-new-password-9', address }),
      10_000,
    );
  for (let i = 0; i < 3; i++) assert.is(codeOf(await change('wrong-password')), 'password.incorrect');
  const compared = ctx.verifies.count;
  const refused = await change('john-password');
  assert.is(codeOf(refused), 'login.throttled');
  assert.ok(!refused.ok && 'retryAfter' in refused && refused.retryAfter > 0);
  assert.is(ctx.verifies.count, compared, 'no password compared');
  assert.is(codeOf(await login('john-password', '10.0.0.5')), 'login.throttled', 'the same counts as a login');
  // An address that logged in as the user is held back by its own failures only.
  assert.is(codeOf(await change('john-password', '10.0.0.1')), 'ok');
});

t.run();
