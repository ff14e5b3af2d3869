/**
 * Two processes on one data directory, on two ports, with `security.jwt.issuer` unset: one issuer
 * for both (the first start's, kept in the data directory), so each accepts the other's tokens; a
 * process configured with another issuer refuses them, and says why in its log.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer, type ChildServer } from '../helpers/child.ts';
import { closedPort } from '../helpers/ports.ts';
import { tempDir } from '../helpers/server.ts';
import { bearer, login } from '../helpers/tokens.ts';

const ctx = {} as { dir: string; servers: ChildServer[] };
const t = suite('one data directory, two ports: one issuer', ctx);

t.before(() => {
  ctx.dir = tempDir('troupe-issuer-');
  ctx.servers = [];
});
t.after(async () => {
  await Promise.all(
    ctx.servers.map(async (s) => {
      s.child.kill('SIGTERM');
      await s.exited;
    }),
  );
  rmSync(ctx.dir, { recursive: true, force: true });
});

const start = async (env: Record<string, string> = {}): Promise<ChildServer> => {
  const server = await startChildServer(ctx.dir, { PORT: String(await closedPort()), ...env });
  ctx.servers.push(server);
  return server;
};
const listAll = async (server: ChildServer, token: string): Promise<number> =>
  (await fetch(`${server.url}/app/listAll`, { headers: bearer(token) })).status;
const metadataIssuer = async (server: ChildServer): Promise<unknown> =>
  ((await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: unknown }).issuer;
const issOf = (token: string): unknown =>
  (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { iss: unknown }).iss;

t(
  "started at once on two ports, each accepts the other's tokens: the tokens and metadata name one issuer",
  async () => {
    const [a, b] = await Promise.all([start(), start()]);
    assert.ok(a && b && a.url !== b.url);
    const fromA = (await login(a.url)).access_token;
    const fromB = (await login(b.url)).access_token;
    assert.is(await listAll(b, fromA), 200, "A's token at B");
    assert.is(await listAll(a, fromB), 200, "B's token at A");
    const issuer = readFileSync(join(ctx.dir, 'issuer'), 'utf8').trim();
    assert.ok([a.url, b.url].includes(issuer), `the first start's default: ${issuer}`);
    for (const token of [fromA, fromB]) assert.is(issOf(token), issuer);
    assert.is(await metadataIssuer(a), issuer);
    assert.is(await metadataIssuer(b), issuer);
  },
);

t(
  'a process with another configured issuer refuses them and logs both issuers and the key, not the token',
  async () => {
    const [a] = ctx.servers;
    assert.ok(a);
    const token = (await login(a.url)).access_token;
    const c = await start({ SECURITY_JWT_ISSUER: 'http://elsewhere.test' });
    assert.is(await metadataIssuer(c), 'http://elsewhere.test', 'a configured issuer is kept');
    const refused = await fetch(`${c.url}/app/listAll`, { headers: bearer(token) });
    assert.is(refused.status, 401);
    const line = c
      .output()
      .split('\n')
      .find((l) => l.includes('another issuer'));
    assert.ok(line, 'the refusal is logged');
    const logged = JSON.parse(line) as Record<string, unknown>;
    assert.is(logged['expected'], 'http://elsewhere.test');
    assert.is(logged['presented'], issOf(token));
    assert.is(logged['key'], 'security.jwt.issuer');
    assert.not.ok(line.includes(token.split('.')[2] ?? '-'), 'the token is not logged');
  },
);

t.run();
