import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
import * as Token from '../../actors/token/protocol.ts';
import { tell, startSystem, stopSystem, type ActorSystem, type Ref } from '../../src/messaging/nact.ts';
import type { Client } from '../../src/security/clients.ts';
import type { createTokenVerifier } from '../../src/security/jwt.ts';
import bcrypt from 'bcryptjs';
import { costOf, createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { hashToken, newRefreshToken } from '../../src/security/refresh-tokens.ts';
import type { RefreshTokenRecord, RefreshTokenStore } from '../../src/stores/refresh-token-store.ts';
import { sqliteAccountStore } from '../../src/stores/account-store.sqlite.ts';
import type { Db } from '../../src/stores/sqlite.ts';
import { CLIENT, startTokenActor, type TokenActorSetup } from '../helpers/token-actor.ts';
import { createProbe, type Probe } from '../helpers/probe.ts';

const PASSWORD_ONLY: Client = { ...CLIENT, clientId: 'password-only', grantTypes: ['password'] };
const OTHER: Client = { ...CLIENT, clientId: 'other-client' };

interface Ctx {
  system: ActorSystem;
  db: Db;
  hasher: PasswordHasher;
  token: Ref<Token.Command>;
  accounts: Ref<Accounts.Command>;
  clock: { now: number };
  probe: Probe<Token.GrantReply>;
  verify: ReturnType<typeof createTokenVerifier>;
}
const ctx = {} as Ctx;
const t = suite('TokenActor', ctx);

t.before(async () => {
  ctx.hasher = createPasswordHasher(2);
  ctx.clock = { now: Date.now() };
  ctx.system = startSystem('token-test');
  const setup = await startTokenActor(ctx.system, {
    hasher: ctx.hasher,
    clients: [CLIENT, PASSWORD_ONLY, OTHER],
    now: () => ctx.clock.now,
  });
  ctx.token = setup.token;
  ctx.accounts = setup.accounts;
  ctx.db = setup.db;
  ctx.verify = setup.verify;
  ctx.probe = createProbe<Token.GrantReply>(ctx.system);
});

t.after(async () => {
  stopSystem(ctx.system);
  await ctx.hasher.close();
  ctx.db.close();
});

async function grant(request: ReturnType<typeof Token.issueToken>): Promise<Token.GrantReply> {
  tell(ctx.token, request(ctx.probe.ref));
  return ctx.probe.expectMessage(5000);
}

const password = (username: string, pw: string, extra: { clientId?: string; scope?: string[] } = {}) =>
  grant(Token.issueToken({ clientId: extra.clientId ?? 'troupe-client', username, password: pw, scope: extra.scope }));
const refresh = (refreshToken: string, extra: { clientId?: string; scope?: string[] } = {}) =>
  grant(Token.refresh({ clientId: extra.clientId ?? 'troupe-client', refreshToken, scope: extra.scope }));

function value(reply: Token.GrantReply): Token.TokenGrant {
  if (!reply.ok) throw new Error(`expected a grant, got ${reply.code}`);
  return reply.value;
}

t("IssueToken: a signed access token with the user's authorities, and a refresh token", async () => {
  const g = value(await password('john.doe', 'john-password'));
  assert.is(g.tokenType, 'Bearer');
  assert.equal(g.scope, ['read', 'write']);
  assert.ok(g.expiresIn >= 3599 && g.expiresIn <= 3600);
  assert.match(g.refreshToken ?? '', /^[A-Za-z0-9_-]{43}$/);
  const p = await ctx.verify(g.accessToken, ctx.clock.now);
  assert.is(p.username, 'john.doe');
  assert.is(p.jti, g.jti);
  assert.equal(p.authorities, ['ADMIN', 'USER']);
});

t('IssueToken: wrong password and unknown user both answer grant.invalid "Bad credentials"', async () => {
  assert.equal(await password('john.doe', 'nope'), { ok: false, code: 'grant.invalid', message: 'Bad credentials' });
  assert.equal(await password('ghost', 'john-password'), {
    ok: false,
    code: 'grant.invalid',
    message: 'Bad credentials',
  });
});

t('IssueToken: a password over 72 bytes is request.invalid, for a known user and an unknown one alike', async () => {
  const refused = { ok: false, code: 'request.invalid', message: 'Passwords longer than 72 bytes are not accepted' };
  // Its first 72 bytes are the right password: BCrypt would let it in, were it compared.
  assert.equal(await password('john.doe', 'john-password' + 'x'.repeat(80)), refused);
  assert.equal(await password('ghost', '€'.repeat(25)), refused, '25 characters, 75 bytes');
  assert.ok((await password('john.doe', 'john-password')).ok, 'the password itself still logs in');
});

t('IssueToken: a narrower scope is granted; an unknown scope is scope.invalid', async () => {
  assert.equal(value(await password('admin', 'admin-password', { scope: ['read'] })).scope, ['read']);
  const bad = await password('admin', 'admin-password', { scope: ['read', 'delete'] });
  assert.equal(bad, { ok: false, code: 'scope.invalid', message: 'Invalid scope: delete' });
});

t('Refresh: a client without the refresh_token grant gets no refresh token and may not refresh', async () => {
  const g = value(await password('admin', 'admin-password', { clientId: 'password-only' }));
  assert.is(g.refreshToken, undefined);
  const other = value(await password('admin', 'admin-password'));
  const reply = await refresh(other.refreshToken ?? '', { clientId: 'password-only' });
  assert.is(reply.ok ? '' : reply.code, 'grant.unauthorized');
});

t('Refresh: rotates the token, may narrow but not widen the scope', async () => {
  const first = value(await password('admin', 'admin-password', { scope: ['read'] }));
  const widened = await refresh(first.refreshToken ?? '', { scope: ['read', 'write'] });
  assert.is(widened.ok ? '' : widened.code, 'scope.invalid');
  const second = value(await refresh(first.refreshToken ?? ''));
  assert.is.not(second.refreshToken, first.refreshToken);
  assert.equal(second.scope, ['read']);
  assert.ok(value(await refresh(second.refreshToken ?? '')).accessToken);
});

t('Refresh: a token used twice is refused and revokes every token of that login', async () => {
  const first = value(await password('john.doe', 'john-password'));
  const second = value(await refresh(first.refreshToken ?? ''));
  const reuse = await refresh(first.refreshToken ?? '');
  assert.is(reuse.ok ? '' : reuse.code, 'grant.invalid');
  const afterReuse = await refresh(second.refreshToken ?? '');
  assert.equal(afterReuse, { ok: false, code: 'grant.invalid', message: 'Refresh token revoked' });
});

/** Whether the verifier (the resource server's and introspection's) still accepts the token. */
const accepted = (token: string): Promise<boolean> =>
  ctx.verify(token, ctx.clock.now).then(
    () => true,
    () => false,
  );

t(
  "Refresh: reuse revokes the login's access tokens too, the first and every rotation's; other logins keep theirs",
  async () => {
    const first = value(await password('john.doe', 'john-password'));
    const second = value(await refresh(first.refreshToken ?? ''));
    const third = value(await refresh(second.refreshToken ?? ''));
    const other = value(await password('john.doe', 'john-password'));
    const claims = (t: string) =>
      JSON.parse(Buffer.from(t.split('.')[1] ?? '', 'base64url').toString()) as { sid: string; jti: string };
    assert.is(claims(first.accessToken).sid, claims(third.accessToken).sid, 'one login, one sid');
    assert.is.not(claims(first.accessToken).sid, claims(other.accessToken).sid);
    for (const t of [first, second, third, other]) assert.ok(await accepted(t.accessToken));
    assert.is((await refresh(first.refreshToken ?? '')).ok, false);
    for (const t of [first, second, third])
      assert.not.ok(await accepted(t.accessToken), 'an access token of the revoked login is still accepted');
    assert.ok(await accepted(other.accessToken), 'another login of the same user was revoked too');
    assert.ok(value(await refresh(other.refreshToken ?? '')).accessToken);
  },
);

t("Refresh: unknown, another client's, and expired tokens are grant.invalid", async () => {
  assert.is((await refresh('A'.repeat(43))).ok, false);
  const g = value(await password('john.doe', 'john-password'));
  const other = await refresh(g.refreshToken ?? '', { clientId: 'other-client' });
  assert.is(other.ok ? '' : other.message, 'Invalid refresh token');
  ctx.clock.now += 601_000;
  try {
    assert.equal(await refresh(g.refreshToken ?? ''), {
      ok: false,
      code: 'grant.invalid',
      message: 'Refresh token expired',
    });
  } finally {
    ctx.clock.now -= 601_000;
  }
});

t(
  'AccountActor ListAccounts: both accounts with their roles, ordered by id; no BCrypt hash unless asked for',
  async () => {
    const probe = createProbe<Accounts.AccountsReply>(ctx.system);
    tell(ctx.accounts, Accounts.listAccounts()(probe.ref));
    const reply = await probe.expectMessage();
    assert.ok(reply.ok);
    if (!reply.ok) return;
    assert.equal(
      reply.value.map((u) => [u.id, u.username, u.roles.map((r) => r.roleName)]),
      [
        [1, 'admin', ['ADMIN']],
        [2, 'john.doe', ['ADMIN', 'USER']],
      ],
    );
    assert.ok(
      reply.value.every((u) => !('password' in u)),
      'a hash left the actor without being asked for',
    );
    tell(ctx.accounts, Accounts.listAccounts({ includePasswordHash: true })(probe.ref));
    const withHashes = await probe.expectMessage();
    // At the initial data's cost 10, or 4 once a login has hashed it again at the configured cost.
    assert.match(withHashes.ok ? (withHashes.value[0]?.password ?? '') : '', /^\$2b\$(10|04)\$/);
  },
);

t.run();

t('a message of no known kind › its sender learns the kinds the actor takes', async () => {
  const probe = createProbe<unknown>(ctx.system);
  tell(ctx.token, { type: 'Shutdown', sender: probe.ref } as unknown as Token.Command);
  const kinds = Object.keys(Token.examples).join(' | ');
  assert.equal(await probe.expectMessage(), {
    ok: false,
    code: 'internal',
    message: `TokenActor takes ${kinds}, not 'Shutdown'`,
  });
});

const timing = suite('TokenActor: unknown users cost a BCrypt comparison too');

/**
 * A TokenActor on a hasher that notes every BCrypt check (`note` picks what to keep of it); the
 * actor, its system, its database and the hasher are shut down after `body`.
 */
async function withCountingHasher(
  name: string,
  note: (password: string, hash: string) => string,
  body: (token: TokenActorSetup['token'], system: ActorSystem, seen: string[], setup: TokenActorSetup) => Promise<void>,
): Promise<void> {
  const real = createPasswordHasher(1);
  const seen: string[] = [];
  const counting: PasswordHasher = {
    ...real,
    verify: (pw, hash) => {
      seen.push(note(pw, hash));
      return real.verify(pw, hash);
    },
  };
  const system = startSystem(name);
  const setup = await startTokenActor(system, { hasher: counting });
  try {
    await body(setup.token, system, seen, setup);
  } finally {
    stopSystem(system);
    await setup.unknownAccount.settled();
    await real.close();
    setup.db.close();
  }
}

timing('an unknown user is compared against the dummy hash, so both failures take the same work', () =>
  withCountingHasher(
    'token-timing',
    (_pw, hash) => hash,
    async (token, system, seen) => {
      const probe = createProbe<Token.GrantReply>(system);
      tell(token, Token.issueToken({ clientId: 'troupe-client', username: 'ghost', password: 'whatever' })(probe.ref));
      assert.is((await probe.expectMessage(5000)).ok, false);
      tell(token, Token.issueToken({ clientId: 'troupe-client', username: 'admin', password: 'wrong' })(probe.ref));
      assert.is((await probe.expectMessage(5000)).ok, false);
      assert.is(seen.length, 2);
      assert.is.not(seen[0], seen[1]);
      assert.match(seen[0] ?? '', /^\$2b\$10\$/);
    },
  ),
);

timing('an unknown user is compared at the cost most stored hashes have, not the configured one', () =>
  withCountingHasher(
    'token-timing-cost',
    (_pw, hash) => hash,
    async (token, system, seen, setup) => {
      const probe = createProbe<Token.GrantReply>(system);
      /** The cost of the hash an unknown user's password was compared against. */
      const unknownUser = async (): Promise<number | undefined> => {
        tell(
          token,
          Token.issueToken({ clientId: 'troupe-client', username: 'ghost', password: 'whatever' })(probe.ref),
        );
        assert.is((await probe.expectMessage(5000)).ok, false);
        await setup.unknownAccount.settled();
        return costOf(seen.at(-1) ?? '');
      };
      // The initial accounts' hashes are cost 10; the helper's configured cost is 4.
      assert.is(await unknownUser(), 10);
      // Another process (its own store over the file) gives both accounts cost-5 hashes.
      const other = sqliteAccountStore(setup.db);
      for (const username of ['admin', 'john.doe']) {
        const account = await other.findByUsername(username);
        assert.ok(account);
        await other.setPassword(account.id, bcrypt.hashSync('another-password', 5));
      }
      // The first lookup after the change is answered with the hash chosen before, and checks the store.
      await unknownUser();
      assert.is(await unknownUser(), 5);
    },
  ),
);

timing.run();

const reuse = suite('TokenActor: refresh-token reuse by two processes at once');

/**
 * A TokenActor whose refresh-token store lets "another process" act at the two points where the
 * race is decided: right after the actor read a token (`afterFind`), and when it marks the
 * login's tokens revoked (`revokeLogin`, e.g. failing as a failover would). The store underneath is real.
 */
async function withRaceableStore(
  name: string,
  body: (
    grantOf: (request: ReturnType<typeof Token.issueToken>) => Promise<Token.GrantReply>,
    hooks: {
      afterFind?: (store: RefreshTokenStore, record: RefreshTokenRecord) => Promise<void>;
      revokeLogin?: () => Promise<void>;
    },
    verify: (token: string) => Promise<boolean>,
    store: () => RefreshTokenStore,
  ) => Promise<void>,
): Promise<void> {
  const hasher = createPasswordHasher(1);
  const system = startSystem(name);
  const hooks: Parameters<typeof body>[1] = {};
  let real: RefreshTokenStore | undefined;
  const { token, db, verify } = await startTokenActor(system, {
    hasher,
    refreshTokens: (store) => {
      real = store;
      return {
        ...store,
        async find(hash) {
          const record = await store.find(hash);
          const hook = hooks.afterFind;
          hooks.afterFind = undefined;
          if (record && hook) await hook(store, record);
          return record;
        },
        async revokeLogin(loginId, at) {
          const hook = hooks.revokeLogin;
          hooks.revokeLogin = undefined;
          await hook?.();
          return store.revokeLogin(loginId, at);
        },
      };
    },
  });
  const probe = createProbe<Token.GrantReply>(system);
  try {
    await body(
      async (request) => {
        tell(token, request(probe.ref));
        return probe.expectMessage(5000);
      },
      hooks,
      (t) =>
        verify(t, Date.now()).then(
          () => true,
          () => false,
        ),
      () => real ?? (assert.unreachable('no store') as never),
    );
  } finally {
    stopSystem(system);
    await hasher.close();
    db.close();
  }
}

const login = Token.issueToken({ clientId: 'troupe-client', username: 'john.doe', password: 'john-password' });
const refreshWith = (refreshToken: string) =>
  Token.refresh({ clientId: 'troupe-client', refreshToken, scope: undefined });

/** What another process does when it wins the rotation: spends the token and stores its successor. */
async function winElsewhere(store: RefreshTokenStore, record: RefreshTokenRecord): Promise<string> {
  const successor = newRefreshToken();
  const next = { ...record, tokenHash: hashToken(successor), usedAt: null, revokedAt: null };
  assert.is(await store.rotate(record.tokenHash, next, Math.floor(Date.now() / 1000)), 'rotated');
  return successor;
}

reuse(
  'losing the rotation (the token spent elsewhere after it was read) is reuse: the login is revoked, the winner’s tokens too',
  () =>
    withRaceableStore('token-race', async (grantOf, hooks, verify) => {
      const first = value(await grantOf(login));
      let winners = '';
      hooks.afterFind = async (store, record) => {
        winners = await winElsewhere(store, record);
      };
      const lost = await grantOf(refreshWith(first.refreshToken ?? ''));
      assert.equal(lost, {
        ok: false,
        code: 'grant.invalid',
        message: 'Refresh token already used; every token of this login is revoked',
      });
      assert.not.ok(await verify(first.accessToken), "the login's access token is still accepted");
      const afterwards = await grantOf(refreshWith(winners));
      assert.is(afterwards.ok ? 'a new grant' : afterwards.message, 'Refresh token revoked');
    }),
);

reuse(
  'revoking a login is one durable step: when marking its refresh tokens fails, its refresh tokens are refused all the same',
  () =>
    withRaceableStore('token-partial', async (grantOf, hooks, verify) => {
      const first = value(await grantOf(login));
      const second = value(await grantOf(refreshWith(first.refreshToken ?? '')));
      hooks.revokeLogin = () => Promise.reject(new Error('not writable primary'));
      const reused = await grantOf(refreshWith(first.refreshToken ?? ''));
      assert.is(reused.ok, false);
      assert.not.ok(await verify(second.accessToken));
      const afterwards = await grantOf(refreshWith(second.refreshToken ?? ''));
      assert.is(afterwards.ok ? 'a new grant' : afterwards.message, 'Refresh token revoked');
    }),
);

reuse.run();
