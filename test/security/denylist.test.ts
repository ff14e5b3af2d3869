/**
 * The denylist over the store, as two processes see it: two connections to one SQLite file, each
 * with its own denylist. What one revokes, the other refuses on its next check.
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { STORE_RETENTION_S, createDenylist, type Denylist } from '../../src/security/denylist.ts';
import { sqliteRevocationStore } from '../../src/stores/revocation-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { tempDir } from '../helpers/server.ts';

interface Ctx {
  dir: string;
  dbs: Db[];
  clock: { now: number };
}
const ctx = { dbs: [], clock: { now: 1_000_000 } } as unknown as Ctx;
const t = suite('security: denylist shared by processes through the store', ctx);
t.before.each(() => {
  ctx.dir = tempDir('troupe-denylist-');
});
t.after.each(() => {
  for (const db of ctx.dbs.splice(0)) db.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** A process: its own connection to the shared file, and its own denylist. */
function aProcess(): Denylist {
  const db = openDatabase(ctx.dir, { synchronous: 'NORMAL' });
  ctx.dbs.push(db);
  return createDenylist(sqliteRevocationStore(db), () => ctx.clock.now);
}

const token = (jti: string, loginId?: string) => ({ jti, loginId, accountId: 1, accountVersion: 0 });

t("a user's token naming no account is refused; a client's own token names none and is not", async () => {
  const a = aProcess();
  assert.is(await a.isRevoked({ jti: 'j', loginId: undefined }), true);
  assert.is(await a.isRevoked({ jti: 'j', loginId: undefined, accountId: 1 }), true, 'no version');
  assert.is(await a.isRevoked({ jti: 'j', loginId: undefined, clientToken: true }), false);
  assert.is(await a.isRevoked(token('j')), false);
});

t('an account moved by one process refuses its older versions at the other; a restart reads it again', async () => {
  const [a, b] = [aProcess(), aProcess()];
  const at = (accountVersion: number, accountId = 7) => ({ jti: 'j', loginId: undefined, accountId, accountVersion });
  assert.is(await b.isRevoked(at(0)), false);
  // The entry a change writes with the account (see the account store); here written alone.
  const db = ctx.dbs[0];
  db?.prepare("insert into revocations (kind, id, expires_at, below_version) values ('account', '7', 9e15, 2)").run();
  a.accountMoved(7, 2);
  for (const d of [a, b, aProcess()]) {
    assert.equal(
      [await d.isRevoked(at(1)), await d.isRevoked(at(2)), await d.isRevoked(at(1, 8))],
      [true, false, false],
    );
  }
});

t('a token revoked by one process is refused by the other on its next check', async () => {
  const [a, b] = [aProcess(), aProcess()];
  assert.is(await b.isRevoked(token('j1')), false);
  await a.revoke('j1', ctx.clock.now + 60);
  assert.is(await a.isRevoked(token('j1')), true);
  assert.is(await b.isRevoked(token('j1')), true);
  assert.is(await b.isRevoked(token('j2')), false);
});

t(
  'revokedNow: at once while the store has nothing new; after another process wrote, only once it is read',
  async () => {
    const [a, b] = [aProcess(), aProcess()];
    assert.is(await b.isRevoked(token('j1')), false);
    assert.is(b.revokedNow(token('j1')), false, 'nothing new: answered from memory');
    await a.revoke('j1', ctx.clock.now + 60);
    assert.is(b.revokedNow(token('j1')), undefined, 'the store changed: not answered before it is read');
    assert.is(await b.isRevoked(token('j1')), true, 'isRevoked waits for the read revokedNow started');
    assert.is(b.revokedNow(token('j1')), true);
    assert.is(b.revokedNow(token('j2')), false);
  },
);

t('a login revoked by one process refuses every token of it in the other; other logins pass', async () => {
  const [a, b] = [aProcess(), aProcess()];
  assert.is(await b.isRevoked(token('x', 'login-1')), false);
  await a.revokeLogin('login-1', ctx.clock.now + 60);
  assert.is(await b.isRevoked(token('x', 'login-1')), true);
  assert.is(await b.isRevoked(token('y', 'login-1')), true);
  assert.is(await b.isRevoked(token('z', 'login-2')), false);
  assert.is(await b.isRevoked(token('z')), false);
});

t('a process started later reads every live revocation; expired ones are left out and purged', async () => {
  const a = aProcess();
  await a.revoke('old', ctx.clock.now - 1);
  await a.revoke('live', ctx.clock.now + 60);
  await a.revokeLogin('login-live', ctx.clock.now + 60);
  const b = aProcess();
  assert.is(await b.isRevoked(token('live')), true);
  assert.is(await b.isRevoked(token('any', 'login-live')), true);
  assert.is(await b.isRevoked(token('old')), false);
  const stored = (): number =>
    (ctx.dbs[0]?.prepare('select count(*) as n from revocations').all() as { n: number }[])[0]?.n ?? -1;
  ctx.clock.now += 120;
  await b.purge(ctx.clock.now);
  assert.is(await b.isRevoked(token('live')), false, 'forgotten in memory once expired');
  await a.purge(ctx.clock.now);
  assert.is(stored(), 3, 'kept in the store for a process whose clock runs behind');
  ctx.clock.now += STORE_RETENTION_S;
  await a.purge(ctx.clock.now);
  assert.is(stored(), 0);
});

t('writes of other kinds by the other process only cost a look, never a wrong answer', async () => {
  const [a, b] = [aProcess(), aProcess()];
  ctx.dbs[0]?.prepare("insert into roles (role_name) values ('OTHER')").run();
  assert.is(await b.isRevoked(token('j')), false);
  await a.revoke('j', ctx.clock.now + 60);
  ctx.dbs[0]?.prepare("insert into roles (role_name) values ('MORE')").run();
  assert.is(await b.isRevoked(token('j')), true);
});

t.run();
