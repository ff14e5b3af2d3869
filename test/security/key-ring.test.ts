/**
 * Each process's view of the key set against one SQLite file opened twice (as two processes open
 * it), with a clock the test moves: a rotation is seen at once and switches both views at the same
 * moment; a retirement is refused at once by the other; keys sealed at rest fail closed without
 * their secret; an older version's MAC key stays active until a rotation.
 */
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { retireKey, rotateKeys } from '../../src/composition/key-commands.ts';
import { createLogger } from '../../src/logger.ts';
import { createTokenSigner, createTokenVerifier, InvalidTokenError } from '../../src/security/jwt.ts';
import {
  createSealer,
  generatePrivateKey,
  usableKey,
  KeyStoreUnreadableError,
} from '../../src/security/key-material.ts';
import { storedKeyRing, type KeyRing } from '../../src/security/key-ring.ts';
import { loadConfiguredKey } from '../../src/composition/configured-keys.ts';
import { sqliteKeyStore } from '../../src/stores/key-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import type { KeyUse } from '../../src/stores/key-store.ts';
import { tempDir } from '../helpers/server.ts';

const VALIDITY = 600;
const AHEAD = 60;
const T0 = Date.UTC(2030, 0, 1);
const settings = { issuer: 'http://issuer.test', audience: 'troupe-api', validity: VALIDITY };
const request = {
  username: 'john.doe',
  clientId: 'c',
  scope: ['read'],
  authorities: ['USER'],
  loginId: 'l',
  account: { id: 1, version: 0 },
};

const ctx = { dir: '', dbs: [] as Db[], clock: { now: T0 }, logs: [] as string[] };
const t = suite('security: the key ring of each process', ctx);
t.before.each(() => {
  ctx.dir = tempDir('troupe-key-ring-');
  ctx.clock.now = T0;
  ctx.logs = [];
});
t.after.each(() => {
  for (const db of ctx.dbs.splice(0)) db.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

function store(use: KeyUse = 'access') {
  const db = openDatabase(ctx.dir, { synchronous: 'NORMAL' });
  ctx.dbs.push(db);
  return sqliteKeyStore(db, use);
}

const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    ctx.logs.push(chunk.toString());
    done();
  },
});

async function ring(
  secret?: string,
  firstKey?: () => Promise<{ key: Awaited<ReturnType<typeof usableKey>>; by: string }>,
  start = true,
  use: KeyUse = 'access',
) {
  const r = storedKeyRing({
    use,
    store: store(use),
    sealer: createSealer(secret),
    validity: VALIDITY,
    logger: createLogger('info', sink),
    now: () => ctx.clock.now,
    firstKey:
      firstKey ?? (async () => ({ key: await usableKey(generatePrivateKey('ES256'), 'ES256'), by: 'test start' })),
  });
  if (start) await r.start();
  return r;
}

const tools = (r: KeyRing) => ({
  sign: async () => (await createTokenSigner(r.signing, settings)(request, ctx.clock.now)).token,
  verify: (token: string) => createTokenVerifier(r.verifying, settings)(token, ctx.clock.now),
});
const commands = { validity: VALIDITY, publishAhead: AHEAD, encryptionSecret: undefined, by: 'test' };

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    assert.instance(error, InvalidTokenError);
    return (error as InvalidTokenError).message;
  }
  return assert.unreachable('accepted') as never;
}

t('a rotation is published by both processes at once, and both switch keys at its activation', async () => {
  const a = await ring();
  const b = await ring();
  const first = (await a.signing()).kid;
  assert.is((await b.signing()).kid, first, 'both processes sign with the one first key');
  const before = await tools(a).sign();
  const { kid } = await rotateKeys(store(), commands, ctx.clock.now);
  for (const r of [a, b])
    assert.equal(
      (await r.keys()).map((k) => [k.key.kid, k.state]),
      [
        [first, 'active'],
        [kid, 'next'],
      ],
    );
  assert.is((await b.signing()).kid, first, 'a next key does not sign');
  ctx.clock.now += AHEAD * 1000;
  assert.is((await a.signing()).kid, kid);
  assert.is((await b.signing()).kid, kid);
  const after = await tools(b).sign();
  for (const r of [a, b]) {
    assert.is((await tools(r).verify(before)).kid, first, 'a token of the retired key still verifies');
    assert.is((await tools(r).verify(after)).kid, kid);
  }
  ctx.clock.now += (VALIDITY + 30) * 1000;
  assert.equal(
    (await a.keys()).map((k) => k.state),
    ['active'],
  );
  assert.match(
    ctx.logs.join(''),
    new RegExp(`"kid":"${kid}".*"to":"active".*"cause":"its publish-ahead time has passed"`),
  );
  assert.match(ctx.logs.join(''), new RegExp(`"kid":"${first}".*"to":"retired".*"cause":"superseded by ${kid}"`));
  assert.match(
    ctx.logs.join(''),
    new RegExp(`"kid":"${first}".*"to":"gone".*"cause":"every token it signed has expired"`),
  );
});

t('a key retired by another process is refused at once, though it verified a moment before', async () => {
  const a = await ring();
  const b = await ring();
  const old = await tools(a).sign();
  assert.ok(await tools(b).verify(old));
  await rotateKeys(store(), commands, ctx.clock.now);
  await retireKey(store(), (await a.signing()).kid, { ...commands, by: 'alice' }, ctx.clock.now);
  const oldKid = String(JSON.parse(Buffer.from(old.split('.')[0] ?? '', 'base64url').toString()).kid);
  assert.is(b.verifiesNow(oldKid), undefined, 'the store changed: not answered before the set is read');
  assert.match(await refusal(tools(b).verify(old)), /key is unknown or retired/);
  assert.match(await refusal(tools(a).verify(old)), /key is unknown or retired/);
  assert.is(await b.verifying(oldKid), undefined);
  assert.is(b.verifiesNow(oldKid), false, 'the set read: answered at once');
  const fresh = await tools(a).sign();
  assert.ok(await tools(b).verify(fresh), 'the next key took over at once');
  assert.match(ctx.logs.join(''), /"to":"gone","cause":"retired at once by alice"/);
});

/** A process's ring of id_token keys, whose first key is RS256 (as the server makes it). */
const idTokenRing = () =>
  ring(
    undefined,
    async () => ({ key: await usableKey(generatePrivateKey('RS256'), 'RS256'), by: 'test start' }),
    true,
    'id_token',
  );

t(
  'the id_token lineage beside the access lineage: a first key of its own, rotated and retired on its own',
  async () => {
    const [a, aIds] = [await ring(), await idTokenRing()];
    const [b, bIds] = [await ring(), await idTokenRing()];
    const access = (await a.signing()).kid;
    const first = await aIds.signing();
    assert.is(first.alg, 'RS256');
    assert.is((await bIds.signing()).kid, first.kid, 'both processes sign id_tokens with the one first key');
    assert.is.not(first.kid, access);
    assert.is(await a.verifying(first.kid), undefined, 'an id_token key verifies no access token');
    assert.is(await aIds.verifying(access), undefined, 'an access key is no id_token key');

    const idCommands = { ...commands, use: 'id_token' as const };
    const next = await rotateKeys(store('id_token'), idCommands, ctx.clock.now);
    assert.is(next.alg, 'RS256', 'rotate --use id_token generates RS256');
    for (const r of [aIds, bIds])
      assert.equal(
        (await r.keys()).map((k) => [k.key.kid, k.state]),
        [
          [first.kid, 'active'],
          [next.kid, 'next'],
        ],
      );
    assert.equal(
      (await b.keys()).map((k) => k.key.kid),
      [access],
      'the access keys are as they were',
    );
    try {
      await rotateKeys(store('id_token'), idCommands, ctx.clock.now);
      assert.unreachable('a second rotation of the lineage');
    } catch (error) {
      assert.match((error as Error).message, /a rotation is pending/);
    }
    // The other lineage rotates on its own, and a kid of one lineage is unknown to the other.
    await rotateKeys(store(), commands, ctx.clock.now);
    try {
      await retireKey(store(), first.kid, { ...commands, by: 'test' }, ctx.clock.now);
      assert.unreachable('an id_token key retired from the access lineage');
    } catch (error) {
      assert.match((error as Error).message, /no key .* in the set/);
    }
    ctx.clock.now += AHEAD * 1000;
    assert.is((await bIds.signing()).kid, next.kid);
    await retireKey(store('id_token'), first.kid, { ...commands, by: 'alice' }, ctx.clock.now);
    assert.is(await bIds.verifying(first.kid), undefined, 'retired at once, in the other process too');
    assert.is((await aIds.signing()).kid, next.kid);
    assert.is((await a.keys()).length, 2, 'the access lineage: its active key and the one it retired');
  },
);

t("an older version's MAC key stays active (its tokens verify); the next rotation moves to ES256", async () => {
  const legacy = await loadConfiguredKey('m'.repeat(86), 256, 'test');
  const oldToken = (await createTokenSigner(async () => legacy, settings)(request, ctx.clock.now)).token;
  const r = await ring(undefined, async () => ({ key: legacy, by: 'older version' }));
  assert.is((await r.signing()).alg, 'HS256');
  assert.is((await tools(r).verify(oldToken)).kid, legacy.kid);
  assert.equal(
    (await r.keys()).flatMap((k) => (k.key.publicJwk ? [k.key.kid] : [])),
    [],
    'a MAC key is never published',
  );
  await rotateKeys(store(), commands, ctx.clock.now);
  ctx.clock.now += AHEAD * 1000;
  assert.is((await r.signing()).alg, 'ES256');
  assert.ok(await tools(r).verify(oldToken));
});

t('sealed keys: the right secret opens them; none or another refuses, and nothing secret is logged', async () => {
  const sealed = await ring('the-right-secret-0123456789');
  const token = await tools(sealed).sign();
  for (const wrong of [undefined, 'another-secret-0123456789']) {
    try {
      await ring(wrong);
      assert.unreachable('a process started on a key set it cannot open');
    } catch (error) {
      assert.instance(error, KeyStoreUnreadableError);
    }
    const other = await ring(wrong, undefined, false);
    try {
      await other.signing();
      assert.unreachable('a sealed key opened without its secret');
    } catch (error) {
      assert.instance(error, KeyStoreUnreadableError);
    }
    try {
      await tools(other).verify(token);
      assert.unreachable('verified with an unreadable key set');
    } catch (error) {
      assert.not.instance(error, InvalidTokenError, 'an unreadable set is a fault, not an invalid token');
    }
  }
  const logs = ctx.logs.join('');
  assert.not.match(logs, /sealed:v1|the-right-secret|"d":/);
});

t.run();
