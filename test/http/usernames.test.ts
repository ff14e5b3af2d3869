/**
 * Usernames over HTTP: a new account's name is refused with the rule it fails or stored in its
 * canonical form; logins find it by any spelling of that form; names that predate the rule (here
 * from the initial data) keep logging in by their exact spelling, and no new name may differ from
 * one of them only in case or width.
 */
import bcrypt from 'bcryptjs';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { bearer, login, postToken, USERS } from '../helpers/tokens.ts';

interface Ctx {
  server: TestServer;
  dir: string;
  admin: string;
  log: string[];
}
const ctx = {} as Ctx;
const t = suite('usernames over HTTP', ctx);

/** Older accounts whose names the rule would refuse (a space) or not store so (upper case). */
const OLDER = [
  { username: 'Ops Team', password: 'ops-team-password' },
  { username: 'Émile', password: 'emile-password' },
];

t.before(async () => {
  ctx.log = [];
  ctx.dir = tempDir();
  const data = JSON.parse(readFileSync('data/initial-data.json', 'utf8')) as { users: object[] };
  for (const { username, password } of OLDER)
    data.users.push({ username, password: bcrypt.hashSync(password, 4), roles: ['USER'] });
  const file = join(ctx.dir, 'initial-data.json');
  writeFileSync(file, JSON.stringify(data));
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      ctx.log.push(chunk.toString('utf8'));
      done();
    },
  });
  ctx.server = await startTestServer(
    { 'security.password.bcrypt-cost': '4', 'app.initial-data': file },
    join(ctx.dir, 'data'),
    sink,
  );
  ctx.admin = (await login(ctx.server.url, USERS.admin)).access_token;
});
t.after(async () => {
  await ctx.server?.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

async function create(username: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${ctx.server.url}/app/admin/users`, {
    method: 'POST',
    headers: { ...bearer(ctx.admin), 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password: 'a-fine-password', roles: ['USER'] }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const logsIn = async (username: string, password = 'a-fine-password'): Promise<boolean> =>
  (await postToken(ctx.server.url, { grant_type: 'password', username, password })).status === 200;

t(
  'POST /app/admin/users › 400 validation naming the rule for invisible, bidi, mixed-script and blank names',
  async () => {
    const refusals: [username: string, rule: RegExp][] = [
      ['ad\u200Bmin', /invisible characters/],
      ['adm\u202Ein', /invisible characters/],
      ['\u2067john.doe', /invisible characters/],
      ['аdmin', /mix scripts/], // a Cyrillic а
      ['   ', /spaces/],
      ['jane\u0007', /control characters/],
      ['bob😀', /only letters/],
    ];
    for (const [username, rule] of refusals) {
      const { status, body } = await create(username);
      assert.is(status, 400, JSON.stringify(username));
      assert.is(body['type'], 'urn:problem:troupe:validation');
      const errors = body['errors'] as { field: string; message: string }[];
      assert.is(errors[0]?.field, 'username');
      assert.match(errors[0]?.message ?? '', rule, JSON.stringify(username));
    }
    const listed = await fetch(`${ctx.server.url}/app/admin/users?limit=100`, { headers: bearer(ctx.admin) });
    assert.is(((await listed.json()) as { items: unknown[] }).items.length, 4, 'nothing was created');
  },
);

t('a new name is stored canonical; another spelling of it is taken (409); a login finds it by any', async () => {
  const made = await create('Ｒｕｔｈ');
  assert.is(made.status, 201);
  assert.is(made.body['username'], 'ruth');
  for (const again of ['ruth', 'RUTH', 'ｒｕｔｈ']) {
    const taken = await create(again);
    assert.is(taken.status, 409, again);
    assert.is(taken.body['type'], 'urn:problem:troupe:account.username_taken');
  }
  for (const spelling of ['ruth', 'Ruth', 'ＲＵＴＨ']) assert.ok(await logsIn(spelling), spelling);
  assert.not.ok(await logsIn('ruth', 'not-her-password'));
});

t('older names keep logging in by their exact spelling; no new name may differ from one only by case', async () => {
  for (const { username, password } of OLDER) assert.ok(await logsIn(username, password), username);
  assert.not.ok(await logsIn('ops team', 'ops-team-password'), 'an older name is its exact spelling');
  const taken = await create('émile');
  assert.is(taken.status, 409);
  assert.is(taken.body['type'], 'urn:problem:troupe:account.username_taken');
  assert.is((await create('emile')).status, 201, 'without the accent, another name');
});

t('the initial data: a name the rule refuses is named in a warning at start-up', () => {
  const warned = ctx.log
    .map((l) => JSON.parse(l) as { level: number; msg: string; account?: unknown; rule?: unknown })
    .filter((l) => l.level === 40 && l.msg.includes('username rule'));
  assert.equal(
    warned.map((l) => [l.account, l.rule]),
    [
      ['Ops Team', 'must not contain spaces'],
      ['Émile', 'is not in its canonical form (NFKC, lower case)'],
    ],
  );
});

t.run();
