/** `npm run keys -- list|rotate|retire` on a real data directory, as an operator runs it. */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ListedKey } from '../../src/composition/key-commands.ts';
import { closedPort } from '../helpers/ports.ts';
import { tempDir } from '../helpers/server.ts';

const ctx = { dir: '' };
const t = suite('npm run keys', ctx);
t.before.each(() => {
  ctx.dir = tempDir('troupe-keys-command-');
});
t.after.each(() => rmSync(ctx.dir, { recursive: true, force: true }));

const AHEAD = 120;

function keys(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, ['scripts/keys.ts', ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      CONFIG_FILE: '/dev/null',
      MONGODB_URI: '', // the data directory's store, also where MongoDB suites run
      DATA_DIR: ctx.dir,
      SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: String(AHEAD),
      ...env,
    },
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

/** A refusal is exactly one line on stderr, with no stack, and nothing on stdout. */
function refused(run: ReturnType<typeof keys>, code: number, pattern: RegExp): void {
  assert.is(run.code, code, run.err);
  assert.is(run.out, '');
  assert.is(run.err.split('\n').filter(Boolean).length, 1, run.err);
  assert.match(run.err, /^keys: /);
  assert.match(run.err, pattern);
  assert.not.match(run.err, /\n\s+at /);
}

/** The keys `list --json` shows, of one lineage (`--use`) or both. */
const list = (env: Record<string, string> = {}, use?: string): ListedKey[] => {
  const run = keys(['list', '--json', ...(use === undefined ? [] : ['--use', use])], env);
  assert.is(run.code, 0, run.err);
  return JSON.parse(run.out) as ListedKey[];
};
const accessKeys = (env: Record<string, string> = {}): ListedKey[] => list(env, 'access');

/** The store a server would have made on its first start: the kids of its access key and its id_token key. */
function firstStarted(env: Record<string, string> = {}): { access: string; idToken: string } {
  const run = spawnSync(process.execPath, ['test/fixtures/generated-key.ts'], {
    encoding: 'utf8',
    env: { ...process.env, MONGODB_URI: '', DATA_DIR: ctx.dir, ...env },
  });
  assert.is(run.status, 0, run.stderr);
  const [access = '', idToken = ''] = run.stdout.trim().split('\n');
  return { access, idToken };
}
/** The kid of the access key a first start made. */
const firstStart = (env: Record<string, string> = {}): string => firstStarted(env).access;

t('no store, bad arguments, an unknown algorithm: one line and a non-zero exit', () => {
  refused(keys(['list']), 1, /no store at .*troupe\.db/);
  refused(keys([]), 2, /usage: npm run keys -- list \[--json\] \[--use access\|id_token\] \| rotate/);
  refused(keys(['retire']), 2, /usage/);
  refused(keys(['list', '--alg', 'ES256']), 2, /usage/);
  refused(keys(['list', '--frob']), 2, /--frob/);
  refused(keys(['rotate', '--alg', 'HS256']), 2, /unknown algorithm HS256; one of ES256, ES384, ES512, RS256/);
  refused(keys(['rotate', '--use', 'id_token', '--alg', 'HS256']), 2, /unknown algorithm HS256/);
  refused(keys(['rotate', '--use', 'refresh']), 2, /unknown use refresh; one of access, id_token/);
  refused(keys(['list', '--use']), 2, /--use/);
});

t('list: kid, use, algorithm, state, created, of both lineages, as a table and as JSON', () => {
  const { access, idToken } = firstStarted();
  const [only, idKey, ...rest] = list();
  assert.equal(rest, []);
  assert.is(only?.kid, access);
  assert.is(only?.use, 'access');
  assert.is(only?.alg, 'ES256');
  assert.is(only?.state, 'active');
  assert.is(only?.leaves, null);
  assert.ok(Math.abs(Date.parse(only?.created ?? '') - Date.now()) < 60_000);
  assert.equal([idKey?.kid, idKey?.use, idKey?.alg, idKey?.state], [idToken, 'id_token', 'RS256', 'active']);
  assert.equal(
    list({}, 'id_token').map((k) => k.kid),
    [idToken],
  );
  const table = keys(['list']);
  assert.is(table.code, 0);
  assert.match(table.out, /^KID\s+USE\s+ALG\s+STATE\s+CREATED/);
  assert.match(table.out, new RegExp(`${access}\\s+access\\s+ES256\\s+active`));
  assert.match(table.out, new RegExp(`${idToken}\\s+id_token\\s+RS256\\s+active`));
});

t('rotate: a next key, active after the publish-ahead time; one rotation at a time', () => {
  const first = firstStart();
  const rotated = keys(['rotate', '--alg', 'RS256']);
  assert.is(rotated.code, 0, rotated.err);
  const [, kid] = /^added (\S+) \(access key, RS256\) as next/.exec(rotated.out) ?? [];
  const [old, next] = accessKeys();
  assert.is(old?.kid, first);
  assert.is(old?.state, 'active');
  assert.is(next?.kid, kid);
  assert.is(next?.state, 'next');
  assert.is(Date.parse(next?.activates ?? '') - Date.parse(next?.created ?? ''), AHEAD * 1000);
  refused(keys(['rotate']), 1, new RegExp(`a rotation is pending: ${kid} becomes active at`));
});

t('retire: an unknown kid and the only signing key are refused; the active key gives way to the next at once', () => {
  const first = firstStart();
  refused(keys(['retire', 'no-such-kid']), 1, /no key no-such-kid in the set/);
  // Key ids are base64url thumbprints: one may begin with '-', and is still a key id, not an option.
  refused(keys(['retire', '-sNoSuchKid']), 1, /no key -sNoSuchKid in the set/);
  refused(keys(['retire', '--', '-sNoSuchKid']), 1, /no key -sNoSuchKid in the set/);
  refused(keys(['retire', first]), 1, new RegExp(`${first} is the only signing key; rotate first`));
  assert.is(keys(['rotate']).code, 0);
  const next = accessKeys()[1]?.kid ?? '';
  const retired = keys(['retire', first]);
  assert.is(retired.code, 0, retired.err);
  assert.match(retired.out, new RegExp(`^retired ${first} \\(access key, was active\\)`));
  assert.equal(
    accessKeys().map((k) => [k.kid, k.state]),
    [[next, 'active']],
  );
  refused(keys(['retire', first]), 1, /no key .* in the set/);
});

t('--use id_token: RS256 by default, rotated and retired apart from the access keys', () => {
  const { access, idToken } = firstStarted();
  const rotated = keys(['rotate', '--use', 'id_token']);
  assert.is(rotated.code, 0, rotated.err);
  const [, kid = ''] = /^added (\S+) \(id_token key, RS256\) as next/.exec(rotated.out) ?? [];
  assert.equal(
    list({}, 'id_token').map((k) => [k.kid, k.state]),
    [
      [idToken, 'active'],
      [kid, 'next'],
    ],
  );
  assert.equal(
    accessKeys().map((k) => [k.kid, k.state]),
    [[access, 'active']],
  );
  refused(keys(['rotate', '--use', 'id_token']), 1, new RegExp(`a rotation is pending: ${kid}`));
  assert.is(keys(['rotate']).code, 0, 'the access lineage rotates on its own');
  // A kid of one lineage is unknown to the other: the refusal names the --use that finds it.
  refused(
    keys(['retire', idToken]),
    1,
    new RegExp(`no access key ${idToken}; it is an id_token key: retire it with --use id_token`),
  );
  const retired = keys(['retire', idToken, '--use', 'id_token']);
  assert.is(retired.code, 0, retired.err);
  assert.match(retired.out, new RegExp(`^retired ${idToken} \\(id_token key, was active\\)`));
  assert.equal(
    list({}, 'id_token').map((k) => [k.kid, k.state]),
    [[kid, 'active']],
  );
  const es = keys(['rotate', '--use', 'id_token', '--alg', 'ES384']);
  assert.match(es.out, /^added \S+ \(id_token key, ES384\) as next/, es.err);
});

t("a configured access key: the access keys are fixed by configuration; the id_token keys are the set's", () => {
  const mac = { SECURITY_SIGNING_KEY: 'k'.repeat(32) };
  const { idToken } = firstStarted(mac);
  refused(keys(['list', '--use', 'access'], mac), 1, /fixed by configuration \(security\.signing-key\)/);
  refused(keys(['rotate'], mac), 1, /fixed by configuration/);
  refused(keys(['retire', idToken], mac), 1, /fixed by configuration/);
  const listed = list(mac);
  assert.equal(
    listed.map((k) => [k.kid, k.use, k.alg]),
    [[idToken, 'id_token', 'RS256']],
    'an RS256 id_token key beside the configured MAC key',
  );
  assert.is(keys(['rotate', '--use', 'id_token'], mac).code, 0);
});

t('a store that cannot be reached, a bad configuration: one line, never the secret', async () => {
  const uri = `mongodb://127.0.0.1:${await closedPort()}/troupe?serverSelectionTimeoutMS=300`;
  refused(keys(['list'], { MONGODB_URI: uri }), 1, /the store cannot be reached/);
  const bad = keys(['list'], { SECURITY_KEYS_ENCRYPTION_SECRET: 'short-secret' });
  refused(bad, 1, /security\.keys\.encryption-secret: must be at least 16 characters/);
  assert.not.match(bad.err, /short-secret/);
});

/** Writes `sql` into the store as another process would (a hand, a failing disk). */
function damage(sql: string, ...params: string[]): void {
  const db = new Database(join(ctx.dir, 'troupe.db'));
  db.prepare(sql).run(...params);
  db.close();
}

t('a damaged key: list refuses in one line naming it and what to do; rotate and retire take it out', () => {
  const kid = firstStart();
  damage("update signing_keys set secret = '{not json' where kid = ?", kid);
  refused(
    keys(['list']),
    1,
    new RegExp(
      `^keys: signing key ${kid} cannot be used: its private key is not JSON; .*npm run keys -- retire ${kid}`,
    ),
  );
  refused(keys(['list', '--json']), 1, new RegExp(`signing key ${kid} cannot be used`));
  refused(keys(['retire', kid]), 1, new RegExp(`${kid} is the only signing key; rotate first`));
  assert.is(keys(['rotate']).code, 0);
  const retired = keys(['retire', kid]);
  assert.is(retired.code, 0, retired.err);
  const [only, ...rest] = accessKeys();
  assert.equal(rest, []);
  assert.is(only?.state, 'active');
  assert.is.not(only?.kid, kid);
});

t('a damaged record: list, rotate and retire refuse in one line, naming the key, until it is restored', () => {
  const kid = firstStart();
  damage("update signing_keys set activates_at = 'soon' where kid = ?", kid);
  const says = new RegExp(
    `^keys: signing key ${kid} cannot be used: its record is damaged \\(activatesAt is not a time\\); restore the record from a backup$`,
    'm',
  );
  refused(keys(['list']), 1, says);
  refused(keys(['rotate']), 1, says);
  refused(keys(['retire', kid]), 1, says);
  damage("update signing_keys set kid = '' where kid = ?", kid);
  refused(keys(['list']), 1, /a record of the signing-key set is damaged \(it has no kid\)/);
});

t('with security.keys.encryption-secret the private keys are sealed at rest', () => {
  const secret = { SECURITY_KEYS_ENCRYPTION_SECRET: 'an-encryption-secret-for-tests' };
  firstStart(secret);
  assert.is(keys(['rotate'], secret).code, 0);
  const db = new Database(join(ctx.dir, 'troupe.db'), { readonly: true });
  const rows = db.prepare('select secret from signing_keys').all() as { secret: string }[];
  db.close();
  assert.is(rows.length, 3, 'two access keys, one id_token key');
  for (const { secret: stored } of rows) {
    assert.match(stored, /^sealed:v1:[A-Za-z0-9_-]+$/);
    assert.not.match(stored, /"d"|"kty"/);
  }
});

t.run();
