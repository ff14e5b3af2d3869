/**
 * `mongodb.uri` set, but no server answers: the process starts all the same, and every route that
 * needs a store answers 503 with Retry-After within the server-selection timeout (never a hang),
 * in its prefix's error shape; logins fail closed; /ready names MongoDB; routes that need no store
 * keep answering.
 */
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routesOf } from '../../http/app.ts';
import { pageOf } from '../helpers/authorize.ts';
import { closedPort } from '../helpers/ports.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, bearer, forgeAccessToken, postToken, USERS } from '../helpers/tokens.ts';

const KEY = 'a-signing-key-shared-by-every-instance-0123456789';
const ctx = {} as { server: TestServer; token: string };
const t = suite('MongoDB unreachable', ctx);

t.before(async () => {
  const uri = `mongodb://127.0.0.1:${await closedPort()}/troupe?serverSelectionTimeoutMS=300`;
  ctx.server = await startTestServer({ 'mongodb.uri': uri, 'security.signing-key': KEY });
  ctx.token = await forgeAccessToken(ctx.server.config, KEY);
});
t.after(async () => ctx.server?.close());

/** Sends the request and checks it was answered in bounded time. */
async function timed(path: string, init: RequestInit = {}): Promise<Response> {
  const started = Date.now();
  const res = await fetch(`${ctx.server.url}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  assert.ok(Date.now() - started < 5000, `${path} took ${Date.now() - started} ms`);
  return res;
}

t('the process started; /health 200, /ready 503 naming MongoDB', async () => {
  assert.is((await timed('/health')).status, 200);
  const ready = await timed('/ready');
  assert.is(ready.status, 503);
  assert.match(
    ((await ready.json()) as { detail: string }).detail,
    /^store "MongoDB" does not answer: .*MongoDB cannot be reached/,
  );
});

t('logins fail closed: 503 temporarily_unavailable with Retry-After, no token', async () => {
  const res = await postToken(ctx.server.url, { grant_type: 'password', ...USERS.john });
  assert.is(res.status, 503);
  assert.is(res.headers.get('retry-after'), '1');
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(body['error'], 'temporarily_unavailable');
  assert.is(body['access_token'], undefined);
});

t("every route that needs a store answers 503 with Retry-After, in its prefix's shape; the others answer", async () => {
  const noStore = new Set([
    '/',
    '/health',
    '/metrics',
    '/openapi.json',
    '/docs',
    '/docs/oauth2-redirect.html',
    '/docs/assets/:file',
    '/oauth/sign-in/style.css',
    '/oauth/sign-in/logo',
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/oauth/token_key',
    // Answered from the request alone (these requests are no sign-in: no client, no form body).
    '/oauth/authorize',
    '/oauth/authorize/consent',
    // No hint and no session cookie: the confirmation page, from the request alone.
    '/oauth/logout',
    // No session cookie, no form: the sign-in form, or a refusal, from the request alone (below with a cookie).
    '/oauth/account',
    '/oauth/account/withdraw',
    '/oauth/account/sign-out',
  ]);
  for (const r of routesOf(ctx.server.troupe.app)) {
    const path = r.path.replace(':id', '0123456789abcdef01234567').replace(':file', 'swagger-ui.css');
    const headers: Record<string, string> =
      r.access.kind === 'client'
        ? { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' }
        : { ...bearer(ctx.token), 'Content-Type': 'application/json' };
    const body =
      r.method === 'GET'
        ? undefined
        : r.access.kind === 'client'
          ? 'grant_type=password&username=john.doe&password=john-password&token=x'
          : '{}';
    const res = await timed(path, { method: r.method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    if (noStore.has(r.path)) {
      assert.ok(res.status < 500, `${r.method} ${r.path} → ${res.status}`);
      continue;
    }
    assert.is(res.status, 503, `${r.method} ${r.path} → ${res.status} ${text.slice(0, 200)}`);
    assert.is(res.headers.get('retry-after'), '1', `${r.method} ${r.path}`);
    const shape = JSON.parse(text) as Record<string, unknown>;
    if (r.errorFormat === 'oauth') assert.is(shape['error'], 'temporarily_unavailable', r.path);
    else if (r.path === '/ready') assert.is(shape['status'], 'unavailable');
    else assert.is(shape['status'], 503, r.path);
  }
  const signedIn = await timed('/oauth/account', { headers: { Cookie: `troupe_session=${'A'.repeat(43)}` } });
  assert.is(signedIn.status, 503, 'a session cookie is read from the store');
  assert.is(signedIn.headers.get('retry-after'), '1');
  await signedIn.body?.cancel();
});

t('/oauth/logout signing a session out fails closed: 503, no redirect, the cookie not cleared', async () => {
  const cookie = `troupe_session=${'A'.repeat(43)}`;
  const page = await pageOf(await timed('/oauth/logout', { headers: { Cookie: cookie } }));
  assert.is(page.status, 200, 'the confirmation page needs no store');
  const body = new URLSearchParams(page.fields);
  body.set('decision', 'logout');
  const res = await timed('/oauth/logout', {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
    body: body.toString(),
  });
  assert.is(res.status, 503);
  assert.is(res.headers.get('retry-after'), '1');
  assert.is(res.headers.get('location'), null);
  assert.equal(res.headers.getSetCookie(), []);
  assert.is(((await res.json()) as { error: string }).error, 'temporarily_unavailable');
});

t.run();

const srv = suite(
  'MongoDB unresolvable (mongodb+srv:// host without DNS records)',
  {} as { server: TestServer; log: string[] },
);

srv.before(async (c) => {
  c.log = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      c.log.push(chunk.toString());
      done();
    },
  });
  const uri = 'mongodb+srv://troupe:s3cret-pw@cluster0.troupe.invalid/troupe?serverSelectionTimeoutMS=300';
  c.server = await startTestServer({ 'mongodb.uri': uri, 'security.signing-key': KEY }, undefined, sink);
});
srv.after(async (c) => c.server?.close());

srv(
  'the process stays up: logins 503 with Retry-After, /ready 503, and the logs name the DNS failure, no password',
  async (c) => {
    const res = await postToken(c.server.url, { grant_type: 'password', ...USERS.john });
    assert.is(res.status, 503);
    assert.is(res.headers.get('retry-after'), '1');
    assert.is(((await res.json()) as Record<string, unknown>)['error'], 'temporarily_unavailable');
    const ready = await fetch(`${c.server.url}/ready`);
    assert.is(ready.status, 503);
    assert.is(ready.headers.get('retry-after'), '1');
    const log = c.log.join('');
    assert.match(log, /querySrv E[A-Z]+ _mongodb\._tcp\.cluster0\.troupe\.invalid/);
    assert.match(log, /readiness: the store does not answer/);
    assert.not.match(log, /s3cret-pw/);
  },
);

srv.run();
