/**
 * The README's shell sessions run as written, in order, in one shell, against one freshly started
 * server, started with the settings of the README's `npm start` line: a block fenced as
 * `bash session` is a session; every documented block that calls `curl` must be one, so no session
 * escapes this test. Pasted into a shell without `set -e`, as a person's is, a session stops at its
 * first failure with one line saying why.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CONFIG_KEYS } from '../src/config.ts';
import { documents, fencedBlocks } from './helpers/docs.ts';
import { closedPort } from './helpers/ports.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const ctx = {} as { server: TestServer; outputs: string[] };
const t = suite('README sessions', ctx);
t.before(async () => {
  // The issuer is the server's own address, as with `npm start`: discovery's URLs lead back to it.
  const port = await closedPort();
  ctx.server = await startTestServer({
    ...startedWith(),
    'server.port': String(port),
    'security.jwt.issuer': `http://127.0.0.1:${port}`,
  });
});
t.after(async () => ctx.server?.close());

const sessions = (): string[] =>
  documents().flatMap((doc) =>
    fencedBlocks(doc.text)
      .filter((b) => b.info === 'bash session')
      .map((b) => b.body),
  );
const MARK = (i: number): string => `@@session ${i}@@`;

/**
 * The settings of the README's `NAME=value npm start` line (the example clients), as the
 * configuration's relaxed binding reads them: the server the sessions run against is started so.
 */
function startedWith(): Record<string, string> {
  const readme = readFileSync('README.md', 'utf8');
  const line = fencedBlocks(readme)
    .flatMap((b) => b.body.split('\n'))
    .find((l) => /^([A-Z_]+=\S+ )+npm start$/.test(l));
  const properties: Record<string, string> = {};
  for (const [, name, value] of (line ?? '').matchAll(/([A-Z_]+)=(\S+) /g)) {
    const key = CONFIG_KEYS.find((k) => k.toUpperCase().replace(/[.-]/g, '_') === name);
    if (key === undefined || value === undefined) throw new Error(`README: ${name} sets no configuration key`);
    properties[key] = value;
  }
  return properties;
}

const env = { ...process.env, BASH_ENV: undefined, ENV: undefined };

// The server runs in this process, so the shell must run asynchronously.
const run = promisify(execFile);

/** Runs `script` in bash without errexit or pipefail, as a person's shell is, stderr merged into stdout in order. */
async function pasted(script: string): Promise<string> {
  const args = ['--norc', '--noprofile', '-c', `exec 2>&1\n${script}`];
  try {
    return (await run('bash', args, { encoding: 'utf8', timeout: 60_000, env })).stdout;
  } catch (error) {
    // A failed last step ends the shell with its status; what it printed is the answer.
    const { stdout } = error as { stdout?: unknown };
    if (typeof stdout !== 'string') throw error;
    return stdout;
  }
}

t('every documented block that calls curl is a session, and the README has the seven', () => {
  for (const doc of documents()) {
    for (const block of fencedBlocks(doc.text)) {
      if (/\bcurl\b/.test(block.body))
        assert.is(
          block.info,
          'bash session',
          `${doc.path}: a block calling curl is not fenced as a session:\n${block.body.slice(0, 200)}`,
        );
    }
  }
  assert.is(sessions().length, 7);
});

/** Every session, each after its mark, as one script against `url`. */
const script = (url: string): string =>
  sessions()
    .map((body, i) => `echo '${MARK(i)}'\n${body}`)
    .join('\n')
    .replaceAll('http://127.0.0.1:8080', url);

t('the sessions run as written, in order, in one shell', async () => {
  const result = await run('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script(ctx.server.url)], {
    encoding: 'utf8',
    timeout: 120_000,
    env,
  });
  assert.is(result.stderr, '');
  ctx.outputs = result.stdout.split(/^@@session \d+@@\n/m).slice(1);
  assert.is(ctx.outputs.length, 7);
  // Each answer is on a line of its own: every line that starts a JSON value is one whole value.
  for (const line of result.stdout.split('\n').filter((l) => /^[{[]/.test(l))) {
    assert.not.throws(() => JSON.parse(line), `not one JSON value per line: ${line.slice(0, 200)}`);
  }
});

/** A URL where nothing listens: a port that was free a moment ago. */
async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

t('the README starts the server with the example clients', () => {
  assert.equal(startedWith(), { 'security.clients-file': 'examples/clients.json' });
});

t('pasted into a shell without set -e, each session stops at its first failure, in one line, no stack', async () => {
  const outputs = (await pasted(script(await closedUrl()))).split(/^@@session \d+@@\n/m).slice(1);
  assert.is(outputs.length, sessions().length);
  for (const [i, o] of outputs.entries()) {
    const lines = o.split('\n').filter((l) => l !== '');
    const failed = lines.findIndex((l) => l.startsWith('curl: (7) '));
    assert.ok(failed >= 0, `session ${i} did not fail:\n${o}`);
    // Before its first request a session may print what it made (the authorization address).
    for (const line of lines.slice(0, failed))
      assert.not.match(line, /^curl:|^field:|^\s+at |node:/, `session ${i}: ${line}`);
    for (const line of lines.slice(failed + 1))
      assert.match(line, /^field: no \w+ in an empty answer$/, `session ${i} went on after its first failure: ${line}`);
  }
});

t('a refused request stops its session too: curl names the status, field shows the answer', async () => {
  const first = sessions()[0] ?? '';
  assert.ok(first.includes('-d password=john-password'));
  const wrong = first.replace('-d password=john-password', '-d password=not-johns-password');
  const output = await pasted(wrong.replaceAll('http://127.0.0.1:8080', ctx.server.url));
  assert.equal(output.trim().split('\n'), [
    'curl: (22) The requested URL returned error: 400',
    'field: no access_token in {"error":"invalid_grant","error_description":"Bad credentials"}',
  ]);
});

const out = (i: number): string => ctx.outputs?.[i] ?? '';

t('quick start: a token, then each service answers', () => {
  const o = out(0);
  assert.match(o, /"username":"admin"/);
  assert.match(o, /"username":"john.doe"/);
  assert.match(o, /Hello john\.doe, you are an administrator\./);
  assert.match(o, /Hello john\.doe, you are a user\./);
  assert.match(o, /"items":\[\{"id":"[0-9a-f]{24}","name":"Jane Roe","dateOfBirth":"1990-04-12"/);
  assert.match(o, /"user":\{"id":"[0-9a-f]{24}","name":"Ada Lovelace","email":"ada@example.com"/);
  assert.match(o, /"type":"USER_CREATED"/);
  assert.not.match(o, /"error"|"status":[45]\d\d/);
});

t('secured service: login, role check, introspection, refresh, and reuse revoking the login', () => {
  const lines = out(1).trim().split('\n');
  assert.match(
    lines[0] ?? '',
    /^\{"access_token":"ey[^"]+","token_type":"Bearer","refresh_token":"[^"]+","expires_in":\d+,"scope":"read"/,
  );
  assert.is(lines[1], 'Hello admin, you are an administrator.');
  assert.is(lines[2], '{"error":"access_denied","error_description":"Access is denied"}');
  assert.match(lines[3] ?? '', /^\{"active":true,"scope":"read","client_id":"troupe-client","username":"admin"/);
  assert.match(lines[4] ?? '', /^\{"access_token":"ey[^"]+","token_type":"Bearer","refresh_token":"[^"]+"/);
  assert.is(
    lines[5],
    '{"error":"invalid_grant","error_description":"Refresh token already used; every token of this login is revoked"}',
  );
  assert.match(lines[6] ?? '', /^\{"error":"invalid_token"/);
  assert.is(lines.length, 7);
});

t('accounts: create one, log in as it, disable it, its token refused', () => {
  const lines = out(2).trim().split('\n');
  assert.is(
    lines[0],
    '{"id":3,"username":"jane","firstName":"Jane","lastName":"","email":null,"roles":["USER"],"enabled":true}',
  );
  assert.is(lines[1], 'Hello jane, you are a user.');
  assert.match(lines[2] ?? '', /^\{"id":3,"username":"jane",.*"enabled":false\}$/);
  assert.is(lines[3], '{"error":"invalid_token","error_description":"Access token revoked"}');
  assert.is(lines.length, 4);
});

t('employee service: create, page, search by birth date, conditional update, invalid input, delete', () => {
  const o = out(3);
  assert.match(o, /^HTTP\/1\.1 201 Created\r?$/m);
  assert.match(o, /^Location: \/api\/employee\/[0-9a-f]{24}\r?$/im);
  assert.match(o, /^ETag: "1"\r?$/im);
  const json = o
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const names = (v: Record<string, unknown> | undefined): unknown =>
    (v?.['items'] as { name: string }[] | undefined)?.map((i) => i.name);
  assert.is(json[0]?.['name'], 'Grace Hopper');
  assert.is(json[1]?.['name'], 'Joan Smithers');
  assert.equal(names(json[2]), ['John Smith']);
  assert.is(json[2]?.['nextCursor'], null);
  assert.equal(names(json[3]), ['Joan Smithers', 'John Smith']);
  assert.is(json[4]?.['version'], 2);
  assert.is(json[5]?.['type'], 'urn:problem:troupe:employee.version_conflict');
  assert.is(json[6]?.['status'], 400);
  assert.equal(
    (json[6]?.['errors'] as { field: string }[]).map((e) => e.field),
    ['name', 'dateOfBirth'],
  );
  assert.match(o, /^204$/m);
  assert.is(json[7]?.['type'], 'urn:problem:troupe:employee.not_found');
  assert.is(json.length, 8);
});

t('user-data service: update, activity, history page, email taken, delete', () => {
  const lines = out(4).trim().split('\n');
  const json = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.is(json[0]?.['name'], 'Alan M. Turing');
  assert.is(json[0]?.['version'], 2);
  assert.is(json[1]?.['type'], 'PASSWORD_CHANGED');
  const page = json[2] as { user: { version: number }; activities: { type: string }[]; nextCursor: string | null };
  assert.is(page.user.version, 2);
  assert.equal(
    page.activities.map((a) => a.type),
    ['PASSWORD_CHANGED', 'USER_UPDATED'],
  );
  assert.type(page.nextCursor, 'string');
  assert.is(json[3]?.['type'], 'urn:problem:troupe:user.email_taken');
  assert.ok(lines.includes('204'));
  assert.is(json[4]?.['type'], 'urn:problem:troupe:user.not_found');
});

t('applications and services: the code flow with PKCE, a replayed code, client_credentials', () => {
  const lines = out(5).trim().split('\n');
  assert.match(
    lines[0] ?? '',
    /^http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?response_type=code&client_id=example-web&.*&code_challenge=[\w-]{43}&/,
  );
  const back = new URL(lines[1] ?? '');
  assert.is(back.origin + back.pathname, 'http://127.0.0.1:3000/callback');
  assert.match(back.searchParams.get('code') ?? '', /^[\w-]{43}$/);
  assert.is(back.searchParams.get('state'), 'xyz');
  assert.is(back.searchParams.get('iss'), ctx.server.config.security.jwt.issuer);
  assert.match(
    lines[2] ?? '',
    /^\{"access_token":"ey[^"]+","token_type":"Bearer","refresh_token":"[^"]+",.*"scope":"read"/,
  );
  assert.is(lines[3], 'Hello john.doe, you are a user.');
  assert.match(lines[4] ?? '', /^\{"error":"invalid_grant"/);
  assert.match(lines[5] ?? '', /^\{"error":"invalid_token"/);
  const search = JSON.parse(lines[6] ?? '') as { items: { name: string }[] };
  assert.equal(
    search.items.map((i) => i.name),
    ['Joan Smithers'],
  );
  assert.is(lines[7], '{"error":"access_denied","error_description":"Access is denied"}');
  assert.is(lines.length, 8);
});

t('OpenID Connect: discovery, an id_token checked by jose, userinfo, single sign-on, logout', () => {
  const lines = out(6).trim().split('\n');
  const issuer = ctx.server.config.security.jwt.issuer;
  assert.equal(JSON.parse(lines[0] ?? ''), {
    issuer,
    userinfo_endpoint: `${issuer}/userinfo`,
    end_session_endpoint: `${issuer}/oauth/logout`,
    id_token_signing_alg_values_supported: ['RS256'],
  });
  const checked = JSON.parse(lines[1] ?? '') as Record<string, unknown>;
  assert.match(String(checked['sub']), /^account:\d+$/);
  assert.equal([checked['aud'], checked['nonce_matches']], ['example-web', true]);
  assert.is(typeof checked['auth_time'], 'number');
  const userinfo = JSON.parse(lines[2] ?? '') as Record<string, unknown>;
  assert.equal(
    [userinfo['sub'], userinfo['preferred_username'], userinfo['name']],
    [checked['sub'], 'john.doe', 'John Doe'],
  );
  assert.is(lines[3], 'a code, no password');
  assert.is(lines[4], 'http://127.0.0.1:3000/signed-out?state=bye');
  assert.is(lines[5], 'login_required', 'the session ended by the logout');
  assert.is(lines.length, 6);
});

t("docs/security.md's openssl recipe makes a PKCE verifier and its S256 challenge", async () => {
  const recipe = readFileSync('docs/security.md', 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^(VERIFIER|CHALLENGE)=\$\(.*openssl/.test(l));
  assert.is(recipe.length, 2);
  const { stdout } = await run(
    'bash',
    ['--norc', '--noprofile', '-euo', 'pipefail', '-c', `${recipe.join('\n')}\necho "$VERIFIER $CHALLENGE"`],
    { encoding: 'utf8', env },
  );
  const [verifier = '', challenge] = stdout.trim().split(' ');
  assert.match(verifier, /^[\w-]{43}$/);
  assert.is(challenge, createHash('sha256').update(verifier).digest('base64url'));
});

t("the README's S256 challenge takes any verifier, one that starts with '-' too", async () => {
  const line = (sessions()[5] ?? '').split('\n').find((l) => l.startsWith('CHALLENGE=$(node '));
  assert.ok(line);
  const verifier = `-${'a'.repeat(42)}`;
  const { stdout } = await run(
    'bash',
    ['--norc', '--noprofile', '-euo', 'pipefail', '-c', `${line.replace(/ &&$/, '')}\necho "$CHALLENGE"`],
    { encoding: 'utf8', env: { ...env, VERIFIER: verifier } },
  );
  assert.is(stdout.trim(), createHash('sha256').update(verifier).digest('base64url'));
});

t.run();
