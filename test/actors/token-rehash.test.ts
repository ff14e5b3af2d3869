/**
 * A login whose stored hash has another cost than `security.password.bcrypt-cost` leaves its
 * account hashed at the configured cost: its tokens and security version untouched, and a password
 * set between the comparison and the new hash's write never overwritten, on one process or on two
 * sharing one SQLite file. The configured cost here is 5, the account's hash at 4 (or the initial
 * data's 10).
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
import * as Token from '../../actors/token/protocol.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import type { Client } from '../../src/security/clients.ts';
import { costOf, createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { sqliteAccountStore } from '../../src/stores/account-store.sqlite.ts';
import { pkce } from '../helpers/authorize.ts';
import { gate, holdingHasher, type Holds } from '../helpers/gate.ts';
import { tempDir } from '../helpers/server.ts';
import {
  administer,
  CLIENT,
  okValue as value,
  sendToken as send,
  startTokenActor,
  type TokenActorSetup,
} from '../helpers/token-actor.ts';

const COST = 5;
const PASSWORD = 'john-password';
/** A first-party web app: its sign-in answers with a code, no consent asked. */
const WEB: Client = {
  ...CLIENT,
  clientId: 'web-app',
  grantTypes: ['authorization_code', 'refresh_token'],
  redirectUris: ['https://app.example/callback'],
};

interface Ctx {
  dir: string;
  hasher: PasswordHasher;
  systems: ActorSystem[];
  setups: TokenActorSetup[];
  holds: Holds;
}
const ctx = { systems: [], setups: [], holds: {} } as unknown as Ctx;

/** A TokenActor standing for one process on the shared file; the first one's new hashes can be held. */
async function aProcess(): Promise<TokenActorSetup> {
  const system = startSystem(`rehash-${ctx.systems.length}`);
  ctx.systems.push(system);
  const held = ctx.setups.length === 0;
  const setup = await startTokenActor(system, {
    hasher: held ? holdingHasher(ctx.hasher, ctx.holds) : ctx.hasher,
    bcryptCost: COST,
    dataDir: ctx.dir,
    clients: [CLIENT, WEB],
  });
  ctx.setups.push(setup);
  return setup;
}

const t = suite('TokenActor: a login hashes its password again at the configured cost', ctx);
t.before(() => {
  ctx.hasher = createPasswordHasher(2);
});
t.before.each(() => {
  ctx.dir = tempDir('troupe-rehash-');
  ctx.holds = {};
});
t.after.each(async () => {
  for (const setup of ctx.setups) await setup.rehash.settled();
  for (const system of ctx.systems.splice(0)) stopSystem(system);
  for (const setup of ctx.setups.splice(0)) setup.db.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});
t.after(async () => {
  await ctx.hasher.close();
});

/** john.doe as stored at `setup`. */
const john = async (setup: TokenActorSetup) => {
  const account = await sqliteAccountStore(setup.db).findByUsername('john.doe');
  if (!account) throw new Error('john.doe is gone');
  return account;
};

/** Stores john.doe's password hashed at `cost`, as a password set before the cost was changed. */
async function hashedAt(setup: TokenActorSetup, cost: number): Promise<void> {
  const store = sqliteAccountStore(setup.db);
  const before = await john(setup);
  assert.ok(await store.replaceHash(before.id, before.password, await ctx.hasher.hash(PASSWORD, cost)));
}

const login = (setup: TokenActorSetup, password = PASSWORD) =>
  send(setup, Token.issueToken({ clientId: 'troupe-client', username: 'john.doe', password }));

t('a hash at a lower cost is stored again at the configured one; tokens and security version stay', async () => {
  const here = await aProcess();
  await hashedAt(here, 4);
  const before = await john(here);
  assert.is(costOf(before.password), 4);
  const grant = value(await login(here));
  await here.rehash.settled();
  const after = await john(here);
  assert.is(costOf(after.password), COST, 'hashed again at the configured cost');
  assert.ok(await ctx.hasher.verify(PASSWORD, after.password), 'of the same password');
  assert.is(after.securityVersion, before.securityVersion, 'the security version did not move');
  await here.verify(grant.accessToken, Date.now()); // throws if refused
  const refreshed = value(
    await send(here, Token.refresh({ clientId: 'troupe-client', refreshToken: grant.refreshToken ?? '' })),
  );
  assert.ok(refreshed.accessToken, 'the login goes on');
  assert.ok((await login(here)).ok, 'the password still logs in');
  assert.equal(here.rehash.failures, []);
});

t(
  "a hash at a higher cost (the initial data's 10) is brought down too; one at the configured cost is left",
  async () => {
    const here = await aProcess();
    assert.is(costOf((await john(here)).password), 10);
    value(await login(here));
    await here.rehash.settled();
    const once = (await john(here)).password;
    assert.is(costOf(once), COST);
    value(await login(here));
    await here.rehash.settled();
    assert.is((await john(here)).password, once, 'nothing is written at the configured cost');
  },
);

t("the authorization endpoint's sign-in rehashes as the password grant does", async () => {
  const here = await aProcess();
  await hashedAt(here, 4);
  const before = await john(here);
  const signedIn = value(
    await send(
      here,
      Token.authorize({
        clientId: 'web-app',
        redirectUri: 'https://app.example/callback',
        username: 'john.doe',
        password: PASSWORD,
        codeChallenge: pkce().challenge,
      }),
    ),
  );
  assert.ok('code' in signedIn);
  await here.rehash.settled();
  const after = await john(here);
  assert.is(costOf(after.password), COST);
  assert.is(after.securityVersion, before.securityVersion);
});

t('a wrong password rehashes nothing', async () => {
  const here = await aProcess();
  await hashedAt(here, 4);
  const before = (await john(here)).password;
  assert.is((await login(here, 'not-the-password')).ok, false);
  await here.rehash.settled();
  assert.is((await john(here)).password, before);
});

for (const topology of ['one process', 'two processes on one file'] as const) {
  t(`${topology}: a password set while the login's new hash is made wins over it`, async () => {
    const here = await aProcess();
    const there = topology === 'one process' ? here : await aProcess();
    await hashedAt(here, 4);
    const { id } = await john(here);
    const hold = gate();
    ctx.holds.hash = hold;
    value(await login(here)); // answered before the new hash is made
    await hold.reached; // the rehash has its hash, not yet written
    value(await administer(there, Accounts.setPassword({ actor: 'admin', id, password: 'a-reset-by-admin-7' })));
    const reset = await john(there);
    hold.release();
    await here.rehash.settled();
    const after = await john(here);
    assert.is(after.password, reset.password, "the administrator's hash stands");
    assert.is(after.securityVersion, reset.securityVersion);
    assert.is((await login(there)).ok, false, 'the old password is refused');
    assert.ok((await login(there, 'a-reset-by-admin-7')).ok);
    assert.equal(here.rehash.failures, [], 'a rehash that lost is no failure');
  });
}

t.run();
