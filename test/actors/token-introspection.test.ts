/**
 * Introspection of an access token from the process's cache of verified tokens: a token verified
 * before is answered from memory, its key and the revocation list consulted, and its account not
 * read where the revocation list already decides it (SQLite, which reads every process's entries
 * at once). Whatever ends a token's standing (its revocation, or a change of its account) makes it
 * inactive on the very next introspection, made in this process or another on the same file; where
 * the list may read another process's entries late (MongoDB), the account is read.
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
import * as Token from '../../actors/token/protocol.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import type { AccountStore } from '../../src/stores/account-store.ts';
import type { RevocationStore } from '../../src/stores/revocation-store.ts';
import { accountChanges } from '../helpers/account-changes.ts';
import { tempDir } from '../helpers/server.ts';
import {
  administer,
  okValue as value,
  sendToken as send,
  startTokenActor,
  type TokenActorSetup,
} from '../helpers/token-actor.ts';

interface Ctx {
  dir: string;
  hasher: PasswordHasher;
  systems: ActorSystem[];
  setups: TokenActorSetup[];
  /** Account reads by id, per process. */
  reads: number[];
}
const ctx = { systems: [], setups: [], reads: [] } as unknown as Ctx;

/** A process on the shared file; `late`: its revocation list reads the others' entries late. */
async function aProcess(late = false): Promise<TokenActorSetup> {
  const system = startSystem(`introspection-${ctx.systems.length}`);
  const index = ctx.systems.length;
  ctx.systems.push(system);
  ctx.reads[index] = 0;
  const counted = (store: AccountStore): AccountStore => ({
    ...store,
    findById: (id) => {
      ctx.reads[index] = (ctx.reads[index] ?? 0) + 1;
      return store.findById(id);
    },
  });
  const lagging = (store: RevocationStore): RevocationStore => ({
    ...store,
    changed: () => false,
    seesEveryWrite: false,
  });
  const setup = await startTokenActor(system, {
    hasher: ctx.hasher,
    dataDir: ctx.dir,
    accounts: counted,
    ...(late ? { revocations: lagging } : {}),
  });
  ctx.setups.push(setup);
  return setup;
}

const readsOf = (setup: TokenActorSetup): number => ctx.reads[ctx.setups.indexOf(setup)] ?? 0;
const active = async (setup: TokenActorSetup, token: string, clientId = 'troupe-client'): Promise<boolean> =>
  value(await send(setup, Token.introspect({ clientId, token }))).active;

const t = suite('TokenActor: introspection of an access token from the cache of verified tokens', ctx);
t.before(() => {
  ctx.hasher = createPasswordHasher(2);
});
t.before.each(() => {
  ctx.dir = tempDir('troupe-introspection-');
});
t.after.each(() => {
  for (const system of ctx.systems.splice(0)) stopSystem(system);
  for (const setup of ctx.setups.splice(0)) setup.db.close();
  ctx.reads = [];
  rmSync(ctx.dir, { recursive: true, force: true });
});
t.after(async () => {
  await ctx.hasher.close();
});

const PASSWORD = 'elm-password-1';

/** Eve, an account of `there`, signed in at `here`: her tokens. */
async function eveAt(here: TokenActorSetup, there: TokenActorSetup) {
  const eve = value(
    await administer(
      there,
      Accounts.createAccount({ actor: 'admin', username: 'eve', password: PASSWORD, roles: ['ADMIN', 'USER'] }),
    ),
  );
  const login = value(
    await send(here, Token.issueToken({ clientId: 'troupe-client', username: 'eve', password: PASSWORD })),
  );
  return { id: eve.id, login };
}

/** What ends an access token's standing, made at `where`. */
const ENDINGS = {
  'the token revoked': (where: TokenActorSetup, _id: number, token: string) =>
    send(where, Token.revoke({ clientId: 'troupe-client', token })),
  'its login revoked (its refresh token)': (where: TokenActorSetup, _id: number, _token: string, refresh: string) =>
    send(where, Token.revoke({ clientId: 'troupe-client', token: refresh })),
  ...accountChanges(administer),
} satisfies Record<
  string,
  (where: TokenActorSetup, id: number, token: string, refresh: string) => Promise<Reply<unknown, string>>
>;

t('an introspected access token is kept, and introspected again from memory without an account read', async () => {
  const here = await aProcess();
  const { login } = await eveAt(here, here);
  assert.is(here.verify.lookup(login.accessToken), undefined, 'issued, not verified yet');
  const reads = readsOf(here);
  assert.ok(await active(here, login.accessToken));
  assert.ok(here.verify.lookup(login.accessToken), 'verified by the introspection, and kept');
  assert.ok(await active(here, login.accessToken));
  assert.is(readsOf(here), reads, 'no account read for an access token');
  assert.ok(await active(here, login.refreshToken ?? ''));
  assert.is(readsOf(here), reads + 1, "a refresh token's introspection reads its account");
  assert.not.ok(await active(here, login.accessToken, 'other-client'), "another client's token: inactive");
});

for (const [topology, two] of Object.entries({ 'one process': false, 'two processes on one file': true })) {
  for (const [ending, end] of Object.entries(ENDINGS)) {
    t(`${topology}: a cached token is inactive on the next introspection once ${ending}`, async () => {
      const here = await aProcess();
      const there = two ? await aProcess() : here;
      const { id, login } = await eveAt(here, there);
      assert.ok(await active(here, login.accessToken));
      assert.ok(await active(here, login.accessToken), 'kept');
      value(await end(there, id, login.accessToken, login.refreshToken ?? ''));
      assert.not.ok(await active(here, login.accessToken));
      assert.is(here.verify.lookup(login.accessToken), undefined, 'forgotten');
    });
  }
}

t(
  'a process whose revocation list reads late (MongoDB) reads the account: a change elsewhere is seen at once',
  async () => {
    const here = await aProcess(true);
    const there = await aProcess();
    const { id, login } = await eveAt(here, there);
    assert.ok(await active(here, login.accessToken));
    const reads = readsOf(here);
    assert.ok(await active(here, login.accessToken));
    assert.is(readsOf(here), reads + 1, 'the account read');
    value(await ENDINGS.disable(there, id));
    assert.ok(here.verify.lookup(login.accessToken), 'its list has not read the change yet');
    assert.not.ok(await active(here, login.accessToken), 'the store says disabled');
  },
);

t.run();
