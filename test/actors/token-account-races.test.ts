/**
 * An account change is final even for work in flight: a login, a sign-in, a code or a refresh that
 * read the account before a change answered mints nothing that outlives it. Each race is held at
 * the exact step (a gate in a wrapper of the real hasher or store), the change is made, and the
 * step let go; on one process, and on two processes sharing one SQLite file (each its own
 * connection and revocation list: the server's workers, or two instances on one data directory).
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
import * as Token from '../../actors/token/protocol.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import type { Client } from '../../src/security/clients.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { pkce } from '../helpers/authorize.ts';
import { gate, holdingHasher, holdingStores, type Holds } from '../helpers/gate.ts';
import { accountChanges } from '../helpers/account-changes.ts';
import { tempDir } from '../helpers/server.ts';
import {
  administer,
  CLIENT,
  okValue as value,
  sendToken as send,
  startTokenActor,
  type TokenActorSetup,
} from '../helpers/token-actor.ts';

const { verifier: VERIFIER, challenge: CHALLENGE } = pkce();
const REDIRECT = 'https://app.example/callback';
const WEB: Client = {
  ...CLIENT,
  clientId: 'web-app',
  grantTypes: ['authorization_code', 'refresh_token'],
  redirectUris: [REDIRECT],
};
/** A client without the refresh_token grant: its logins are an access token alone. */
const SERVICE: Client = { ...CLIENT, clientId: 'no-refresh', grantTypes: ['password'] };

interface Ctx {
  dir: string;
  hasher: PasswordHasher;
  systems: ActorSystem[];
  setups: TokenActorSetup[];
  holds: Holds;
}
const ctx = { systems: [], setups: [], holds: {} } as unknown as Ctx;

/** A TokenActor standing for one process on the shared file; the first one's steps can be held. */
async function aProcess(): Promise<TokenActorSetup> {
  const system = startSystem(`races-${ctx.systems.length}`);
  ctx.systems.push(system);
  const held = ctx.setups.length === 0;
  const setup = await startTokenActor(system, {
    hasher: held ? holdingHasher(ctx.hasher, ctx.holds) : ctx.hasher,
    dataDir: ctx.dir,
    clients: [CLIENT, WEB, SERVICE],
    ...(held ? holdingStores(ctx.holds) : {}),
  });
  ctx.setups.push(setup);
  return setup;
}

const accepted = (setup: TokenActorSetup, accessToken: string): Promise<boolean> =>
  setup.verify(accessToken, Date.now()).then(
    () => true,
    () => false,
  );

const t = suite('TokenActor: an account change is final for work in flight', ctx);
t.before(() => {
  ctx.hasher = createPasswordHasher(2);
});
t.before.each(() => {
  ctx.dir = tempDir('troupe-account-races-');
  ctx.holds = {};
});
t.after.each(() => {
  for (const system of ctx.systems.splice(0)) stopSystem(system);
  for (const setup of ctx.setups.splice(0)) setup.db.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});
t.after(async () => {
  await ctx.hasher.close();
});

const PASSWORD = 'elm-password-1';

/** The changes that must cut access, made by `admin` at `where` to account `id`. */
const CHANGES = accountChanges(administer);

/** Eve signs in to the web app at the sign-in form of `setup`. */
const signIn = (setup: TokenActorSetup) =>
  send(
    setup,
    Token.authorize({
      clientId: 'web-app',
      redirectUri: REDIRECT,
      username: 'eve',
      password: PASSWORD,
      codeChallenge: CHALLENGE,
    }),
  );
/** A code of the web app for eve, from the sign-in form of `setup`. */
const codeOf = async (setup: TokenActorSetup): Promise<string> => {
  const signedIn = value(await signIn(setup));
  if (!('code' in signedIn)) throw new Error('consent asked of a first-party client');
  return signedIn.code;
};

const TOPOLOGIES = { 'one process': false, 'two processes on one file': true } as const;

async function setUp(twoProcesses: boolean) {
  const here = await aProcess();
  const there = twoProcesses ? await aProcess() : here;
  const eve = value(
    await administer(
      there,
      Accounts.createAccount({ actor: 'admin', username: 'eve', password: PASSWORD, roles: ['ADMIN', 'USER'] }),
    ),
  );
  return { here, there, id: eve.id };
}

for (const [topology, two] of Object.entries(TOPOLOGIES)) {
  for (const [change, make] of Object.entries(CHANGES)) {
    t(`${topology}: a password grant held at its BCrypt check is refused after a change (${change})`, async () => {
      const { here, there, id } = await setUp(two);
      const hold = gate();
      ctx.holds.verify = hold;
      const login = send(here, Token.issueToken({ clientId: 'troupe-client', username: 'eve', password: PASSWORD }));
      await hold.reached;
      value(await make(there, id));
      hold.release();
      const reply = await login;
      assert.equal(reply.ok ? 'ok' : [reply.code, reply.message], ['grant.invalid', 'Bad credentials']);
    });
  }

  t(`${topology}: the sign-in form held at its BCrypt check issues no code after a password reset`, async () => {
    const { here, there, id } = await setUp(two);
    const hold = gate();
    ctx.holds.verify = hold;
    const signingIn = signIn(here);
    await hold.reached;
    value(await CHANGES['password reset'](there, id));
    hold.release();
    const reply = await signingIn;
    assert.equal(reply.ok ? 'ok' : reply.code, 'grant.invalid');
  });

  t(
    `${topology}: a code minted before a password reset is refused; a deleted and re-created name is another account`,
    async () => {
      const { here, there, id } = await setUp(two);
      const redeem = (c: string) =>
        send(here, Token.redeemCode({ clientId: 'web-app', code: c, redirectUri: REDIRECT, codeVerifier: VERIFIER }));
      const beforeReset = await codeOf(here);
      value(await CHANGES['password reset'](there, id));
      const refused = await redeem(beforeReset);
      assert.equal(refused.ok ? 'ok' : [refused.code, refused.message], ['grant.invalid', Token.ACCOUNT_CHANGED]);
      value(await administer(there, Accounts.setPassword({ actor: 'admin', id, password: PASSWORD })));
      const beforeDelete = await codeOf(here);
      value(await administer(there, Accounts.deleteAccount({ actor: 'admin', id })));
      const again = value(
        await administer(
          there,
          Accounts.createAccount({ actor: 'admin', username: 'eve', password: PASSWORD, roles: ['USER'] }),
        ),
      );
      assert.ok(again.id > id, 'a new id');
      const onNew = await redeem(beforeDelete);
      assert.equal(onNew.ok ? 'ok' : onNew.code, 'grant.invalid');
    },
  );

  // Within one process the actor finishes a login or a refresh from its last read before it takes
  // the next message: only another process can change the account between that read and the write.
  if (!two) continue;

  t(`${topology}: a code redeemed while a password reset answers is refused, and leaves no login`, async () => {
    const { here, there, id } = await setUp(two);
    const code = await codeOf(here);
    // Held right after the redemption read the account, before its login is written.
    const hold = gate();
    ctx.holds.read = hold;
    const redemption = send(
      here,
      Token.redeemCode({ clientId: 'web-app', code, redirectUri: REDIRECT, codeVerifier: VERIFIER }),
    );
    await hold.reached;
    value(await CHANGES['password reset'](there, id));
    hold.release();
    const reply = await redemption;
    assert.equal(reply.ok ? 'ok' : [reply.code, reply.message], ['grant.invalid', Token.ACCOUNT_CHANGED]);
    assert.equal(value(await administer(there, Accounts.listLogins({ id }))), [], 'no login was written');
  });

  t(`${topology}: an own password change held at its BCrypt check loses to an administrator's reset`, async () => {
    const { here, there, id } = await setUp(two);
    const mine = value(
      await send(here, Token.issueToken({ clientId: 'troupe-client', username: 'eve', password: PASSWORD })),
    );
    const { loginId, accountId, accountVersion } = await here.verify(mine.accessToken, Date.now());
    assert.ok(accountId !== undefined && accountVersion !== undefined);
    const hold = gate();
    ctx.holds.verify = hold;
    const change = administer(
      here,
      Accounts.changeOwnPassword({
        accountId,
        accountVersion,
        loginId,
        currentPassword: PASSWORD,
        newPassword: 'elm-chosen-9',
      }),
    );
    await hold.reached;
    value(await CHANGES['password reset'](there, id));
    hold.release();
    const reply = await change;
    assert.equal(reply.ok ? 'ok' : reply.code, 'account.not_found', 'the token speaks for an account version gone');
    const login = (password: string) =>
      send(there, Token.issueToken({ clientId: 'troupe-client', username: 'eve', password }));
    assert.ok((await login('elm-password-2')).ok, "the administrator's password stands");
    assert.is((await login('elm-chosen-9')).ok, false);
  });

  t(`${topology}: a refresh whose account a role change moves between its two reads signs the new roles`, async () => {
    const { here, there, id } = await setUp(two);
    const first = value(
      await send(here, Token.issueToken({ clientId: 'troupe-client', username: 'eve', password: PASSWORD })),
    );
    // Held right after it read the token, at the older version; the account is read after the change.
    const hold = gate();
    ctx.holds.find = hold;
    const pending = send(here, Token.refresh({ clientId: 'troupe-client', refreshToken: first.refreshToken ?? '' }));
    await hold.reached;
    value(await CHANGES.demotion(there, id));
    hold.release();
    const next = value(await pending);
    assert.equal((await here.verify(next.accessToken, Date.now())).authorities, ['USER']);
  });

  t(`${topology}: a login whose account changes after its last read mints nothing that works`, async () => {
    const { here, there, id } = await setUp(two);
    // With a refresh token: its write checks the account's version, and refuses the login.
    const withRefresh = gate();
    ctx.holds.read = withRefresh;
    const login = send(here, Token.issueToken({ clientId: 'troupe-client', username: 'eve', password: PASSWORD }));
    await withRefresh.reached;
    value(await CHANGES.demotion(there, id));
    withRefresh.release();
    const refused = await login;
    assert.equal(refused.ok ? 'ok' : refused.code, 'grant.invalid');
    // Without a refresh token: its login is recorded all the same, by a write that checks the
    // account's version, and is refused alike (nothing signed from the older read is answered).
    const alone = gate();
    ctx.holds.read = alone;
    const second = send(here, Token.issueToken({ clientId: 'no-refresh', username: 'eve', password: PASSWORD }));
    await alone.reached;
    value(await CHANGES['every login ended'](there, id));
    alone.release();
    const refusedAlone = await second;
    assert.equal(refusedAlone.ok ? 'ok' : refusedAlone.code, 'grant.invalid');
    assert.equal(value(await administer(there, Accounts.listLogins({ id }))), [], 'no login recorded');
  });

  t(
    `${topology}: a refresh held at its rotation carries the new roles after a demotion, and ends after a reset`,
    async () => {
      const { here, there, id } = await setUp(two);
      const login = () =>
        send(here, Token.issueToken({ clientId: 'troupe-client', username: 'eve', password: PASSWORD }));
      const refresh = (grant: Token.TokenGrant) =>
        send(here, Token.refresh({ clientId: 'troupe-client', refreshToken: grant.refreshToken ?? '' }));
      const first = value(await login());
      const demoted = gate();
      ctx.holds.rotate = demoted;
      const pending = refresh(first);
      await demoted.reached;
      value(await CHANGES.demotion(there, id));
      demoted.release();
      const next = value(await pending);
      const claims = await here.verify(next.accessToken, Date.now());
      assert.equal(claims.authorities, ['USER'], 'signed from a fresh read: the login goes on with the new roles');
      assert.is(await accepted(there, first.accessToken), false);
      const reset = gate();
      ctx.holds.rotate = reset;
      const ended = refresh(next);
      await reset.reached;
      value(await CHANGES['password reset'](there, id));
      reset.release();
      const reply = await ended;
      // The reset ended the login before it answered: the refresh reads its token again, revoked.
      assert.equal(reply.ok ? 'ok' : [reply.code, reply.message], ['grant.invalid', 'Refresh token revoked']);
      assert.is(await accepted(there, next.accessToken), false);
    },
  );
}

t.run();
