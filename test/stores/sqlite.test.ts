import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../src/config.ts';
import { readInitialData } from '../../src/composition/initial-data.ts';
import { migrate, openDatabase } from '../../src/stores/sqlite.ts';
import { tempDir } from '../helpers/server.ts';

const t = suite('stores: SQLite migrations and initial data');

t('migrations run once, in order, recorded in user_version', () => {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  const version = db.pragma('user_version', { simple: true }) as number;
  assert.ok(version >= 2);
  assert.is(migrate(db), version);
  const tables = db
    .prepare<[], { name: string }>("select name from sqlite_master where type = 'table' order by name")
    .all()
    .map((r) => r.name);
  for (const name of ['refresh_tokens', 'roles', 'user_roles', 'users']) assert.ok(tables.includes(name), name);
  db.close();
});

t('migration 021: the accounts of an older database get the migration time as updated_at', () => {
  const db = new Database(':memory:');
  const dir = 'src/stores/migrations';
  for (const name of readdirSync(dir)
    .filter((f) => /^0[01]\d-|^020-/.test(f))
    .sort())
    db.exec(readFileSync(join(dir, name), 'utf8'));
  db.pragma('user_version = 20');
  db.prepare("insert into users (username, password) values ('kim', 'x')").run();
  const before = Math.floor(Date.now() / 1000);
  migrate(db);
  const after = Math.floor(Date.now() / 1000);
  const stamp = db.prepare<[], number>("select updated_at from users where username = 'kim'").pluck().get();
  assert.ok(stamp !== undefined && stamp >= before && stamp <= after, `updated_at ${String(stamp)}`);
  db.close();
});

t('migration 023: the codes of an older database stay, and a code may then have no challenge', () => {
  const db = new Database(':memory:');
  const dir = 'src/stores/migrations';
  for (const name of readdirSync(dir)
    .filter((f) => /^0[01]\d-|^02[0-2]-/.test(f))
    .sort())
    db.exec(readFileSync(join(dir, name), 'utf8'));
  db.pragma('user_version = 22');
  const insert = `insert into authorization_codes (code_hash, client_id, redirect_uri, code_challenge, scope, username,
    login_id, expires_at, account_id, account_version, nonce, auth_time) values (?, 'web-app', 'https://app.example/cb',
    ?, 'openid', 'kim', 'login-1', 1060, 7, 0, 'n-1', 995)`;
  db.prepare(insert).run('old', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  assert.throws(() => db.prepare(insert).run('bare', null), /NOT NULL/, 'before 023 a challenge is required');
  migrate(db);
  db.prepare(insert).run('bare', null);
  const rows = db
    .prepare(
      'select code_hash, code_challenge, account_id, nonce, auth_time from authorization_codes order by code_hash',
    )
    .all();
  assert.equal(rows, [
    { code_hash: 'bare', code_challenge: null, account_id: 7, nonce: 'n-1', auth_time: 995 },
    {
      code_hash: 'old',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      account_id: 7,
      nonce: 'n-1',
      auth_time: 995,
    },
  ]);
  const index = db
    .prepare("select name from sqlite_master where type = 'index' and tbl_name = 'authorization_codes'")
    .pluck()
    .all();
  assert.ok(index.includes('authorization_codes_expiry'), 'the expiry index is kept');
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

t("initial data may carry Spring's {bcrypt} prefix, as security.jwt.client-secret may", () => {
  const dir = tempDir('troupe-initial-');
  try {
    const data = JSON.parse(readFileSync('data/initial-data.json', 'utf8')) as { users: { password: string }[] };
    for (const user of data.users) user.password = `{bcrypt}${user.password}`;
    const file = join(dir, 'initial-data.json');
    writeFileSync(file, JSON.stringify(data));
    assert.ok(readInitialData(file).users.every((u) => u.password.startsWith('{bcrypt}$2')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
