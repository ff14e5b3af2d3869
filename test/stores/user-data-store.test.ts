import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId } from '../../src/ids.ts';
import { sqliteActivityStore } from '../../src/stores/activity-store.sqlite.ts';
import { openDatabase } from '../../src/stores/sqlite.ts';
import { sqliteUserStore } from '../../src/stores/user-store.sqlite.ts';
import { tempDir } from '../helpers/server.ts';

const t = suite('stores: SQLite users and activity');
const AT = '2026-01-01T00:00:00.000Z';

t('the email index compares case-insensitively, for inserts and updates, and a violation is email_taken', () => {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  const users = sqliteUserStore(db);
  const a = users.insert({ id: newId(), name: 'A', email: 'Ann@Example.com', createdAt: AT, updatedAt: AT });
  assert.ok(a.ok);
  assert.equal(users.insert({ id: newId(), name: 'B', email: 'ann@example.COM', createdAt: AT, updatedAt: AT }), { ok: false, reason: 'email_taken' });
  const b = users.insert({ id: newId(), name: 'B', email: 'bob@example.com', createdAt: AT, updatedAt: AT });
  if (!a.ok || !b.ok) return;
  assert.equal(users.update(b.user.id, 1, { email: 'ANN@example.com', updatedAt: AT }), { ok: false, reason: 'email_taken' });
  assert.equal(users.update(b.user.id, 2, { name: 'X', updatedAt: AT }), { ok: false, reason: 'version_conflict' });
  assert.equal(users.update(newId(), 1, { name: 'X', updatedAt: AT }), { ok: false, reason: 'not_found' });
  const renamed = users.update(b.user.id, 1, { name: 'Bob', updatedAt: '2026-01-02T00:00:00.000Z' });
  assert.equal(renamed, { ok: true, user: { ...b.user, name: 'Bob', updatedAt: '2026-01-02T00:00:00.000Z', version: 2 } });
  db.close();
});

t('activities need their user, page newest first, go with the user, and survive a reopen', () => {
  const dir = tempDir();
  let db = openDatabase(dir, { synchronous: 'FULL' });
  const userId = newId();
  assert.ok(sqliteUserStore(db).insert({ id: userId, name: 'A', email: 'a@example.com', createdAt: AT, updatedAt: AT }).ok);
  const activity = sqliteActivityStore(db);
  assert.is(activity.append({ id: newId(), userId: newId(), type: 'LOGIN', detail: {}, at: AT }), undefined);
  for (let i = 0; i < 3; i++) assert.ok(activity.append({ id: newId(), userId, type: 'STEP', detail: { i }, at: AT }));
  db.close();
  db = openDatabase(dir, { synchronous: 'FULL' });
  const reopened = sqliteActivityStore(db);
  const first = reopened.page(userId, { limit: 2 });
  assert.equal([first.items.map((a) => a.detail['i']), first.hasMore], [[2, 1], true]);
  const rest = reopened.page(userId, { limit: 2, beforeSeq: first.items[1]?.seq });
  assert.equal([rest.items.map((a) => a.detail['i']), rest.hasMore], [[0], false]);
  assert.ok(sqliteUserStore(db).delete(userId));
  assert.equal(reopened.page(userId, { limit: 10 }).items, []);
  db.close();
  rmSync(dir, { recursive: true });
});

t.run();
