import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../src/config.ts';
import { loadInitialData, readInitialData } from '../../src/initial-data.ts';
import { sqliteCredentialStore } from '../../src/stores/credential-store.sqlite.ts';
import { migrate, openDatabase } from '../../src/stores/sqlite.ts';
import { tempDir } from '../helpers/server.ts';

const t = suite('stores: SQLite credentials and migrations');

t('migrations run once, in order, recorded in user_version', () => {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  const version = db.pragma('user_version', { simple: true }) as number;
  assert.ok(version >= 2);
  assert.is(migrate(db), version);
  const tables = db.prepare<[], { name: string }>("select name from sqlite_master where type = 'table' order by name").all().map((r) => r.name);
  for (const name of ['refresh_tokens', 'roles', 'user_roles', 'users']) assert.ok(tables.includes(name), name);
  db.close();
});

t('initial data loads idempotently into a real file: restarting duplicates nothing', () => {
  const dir = tempDir();
  const data = readInitialData('data/initial-data.json');
  for (let i = 0; i < 2; i++) {
    const db = openDatabase(dir, { synchronous: 'FULL' });
    loadInitialData(sqliteCredentialStore(db), data);
    db.close();
  }
  const db = openDatabase(dir, { synchronous: 'FULL' });
  const store = sqliteCredentialStore(db);
  assert.equal(store.listAll().map((u) => [u.username, u.roles.map((r) => r.roleName)]), [['admin', ['ADMIN']], ['john.doe', ['ADMIN', 'USER']]]);
  assert.is(db.prepare('select count(*) from roles').pluck().get(), 2);
  db.close();
  rmSync(dir, { recursive: true });
});

t('saving a user saves its roles (created when missing) and replaces its role set', () => {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  const store = sqliteCredentialStore(db);
  const hash = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';
  const saved = store.saveUser({ username: 'jane', password: hash, roles: [{ roleName: 'AUDITOR', description: 'reads logs' }, { roleName: 'USER' }] });
  assert.equal(saved.roles.map((r) => r.roleName), ['AUDITOR', 'USER']);
  assert.is(saved.roles[0]?.description, 'reads logs');
  const again = store.saveUser({ username: 'jane', password: hash, firstName: 'Jane', roles: [{ roleName: 'USER' }] });
  assert.is(again.id, saved.id);
  assert.is(again.firstName, 'Jane');
  assert.equal(again.roles.map((r) => r.roleName), ['USER']);
  assert.is(store.findByUsername('nobody'), undefined);
  db.close();
});

t('initial data with a plain-text password is refused, naming the setting', () => {
  try {
    readInitialData('test/fixtures/initial-data-plain.json');
    assert.unreachable('should refuse');
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, /app\.initial-data: users\.0\.password must be a BCrypt hash/);
  }
});

t.run();
