/**
 * Opening the database while another process holds a lock longer than SQLite's busy timeout (5 s):
 * the open waits and retries within `data.sqlite.open-timeout-ms`, and past it fails with the
 * SQLite error, not sooner and not never.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../../src/stores/sqlite.ts';
import { tempDir } from '../helpers/server.ts';

/** Another process that opens `dir/troupe.db` in WAL, takes it for itself, and lets go after `ms`. */
async function holdLock(dir: string, ms: number): Promise<ChildProcess> {
  const script = `
    import Database from 'better-sqlite3';
    const db = new Database(${JSON.stringify(join(dir, 'troupe.db'))});
    db.pragma('journal_mode = WAL');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('create table if not exists held (a)');
    db.exec('insert into held values (1)');
    process.stdout.write('held\\n');
    setTimeout(() => db.close(), ${ms});`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout, 'data');
  return child;
}

const t = suite('stores: opening SQLite while another process holds a lock');

t('a lock held longer than the busy timeout: the open retries and succeeds once it is free', async () => {
  const dir = tempDir('troupe-busy-');
  const holder = await holdLock(dir, 7000);
  try {
    const started = Date.now();
    const db = openDatabase(dir, { synchronous: 'NORMAL', openTimeoutMs: 30_000 });
    const waited = Date.now() - started;
    assert.ok(waited >= 5000, `opened after ${waited} ms, while the lock was still held`);
    assert.ok((db.pragma('user_version', { simple: true }) as number) > 0, 'migrated');
    db.close();
  } finally {
    holder.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

t('a lock held past open-timeout-ms: the open fails with SQLITE_BUSY within the bound', async () => {
  const dir = tempDir('troupe-busy-');
  const holder = await holdLock(dir, 10_000);
  try {
    const started = Date.now();
    assert.throws(() => openDatabase(dir, { synchronous: 'NORMAL', openTimeoutMs: 1500 }), /database is locked/);
    const waited = Date.now() - started;
    assert.ok(waited >= 1400 && waited < 4000, `failed after ${waited} ms`);
  } finally {
    holder.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
