/**
 * `changeWatch`: whether another connection committed since a watch last looked, one
 * `PRAGMA data_version` read shared by every watch on a connection within a synchronous run.
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { changeWatch, openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { tempDir } from '../helpers/server.ts';

const ctx = { dir: '', mine: undefined as unknown as Db, other: undefined as unknown as Db };
const t = suite('stores: SQLite change watches', ctx);

t.before.each(() => {
  ctx.dir = tempDir();
  ctx.mine = openDatabase(ctx.dir, { synchronous: 'NORMAL' });
  ctx.other = openDatabase(ctx.dir, { synchronous: 'NORMAL' });
});
t.after.each(() => {
  ctx.mine.close();
  ctx.other.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

const nextRun = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const commitElsewhere = (): void => {
  ctx.other.prepare('delete from revocations where expires_at < 0').run();
  ctx.other.prepare("insert into revocations (kind, id, expires_at) values ('token', ?, 1)").run(String(Math.random()));
};

t('a watch says changed at first, then only after another connection commits', async () => {
  const watch = changeWatch(ctx.mine);
  assert.ok(watch());
  await nextRun();
  assert.not.ok(watch());
  ctx.mine.prepare("insert into revocations (kind, id, expires_at) values ('token', 'own', 1)").run();
  await nextRun();
  assert.not.ok(watch(), "this connection's own commits are its own to know");
  commitElsewhere();
  await nextRun();
  assert.ok(watch());
  assert.not.ok(watch());
});

t('every watch on the connection sees a commit once, from one read', async () => {
  const revocations = changeWatch(ctx.mine);
  const keys = changeWatch(ctx.mine);
  revocations();
  keys();
  await nextRun();
  commitElsewhere();
  await nextRun();
  assert.ok(revocations());
  assert.ok(keys(), 'the second watch learns of the commit from the read the first one made');
  await nextRun();
  assert.not.ok(revocations());
  assert.not.ok(keys());
});

t('within one synchronous run the watches agree on one read; the next run reads again', async () => {
  const watch = changeWatch(ctx.mine);
  watch();
  await nextRun();
  assert.not.ok(watch());
  commitElsewhere(); // in the same run: as if it came just after the read
  assert.not.ok(watch());
  await nextRun();
  assert.ok(watch());
});

t.run();
