import { statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serverSuite, startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { basic, bearer, login, postToken, USERS } from '../helpers/tokens.ts';

const ctx = {} as { server: TestServer };
const t = suite('conventions for every endpoint', ctx);
t.before(async () => {
  ctx.server = await startTestServer({ 'server.max-body-bytes': '2048' });
});
t.after(async () => ctx.server?.close());

t('GET /health → 200 {"status":"ok"}; GET /ready → 200', async () => {
  const res = await fetch(`${ctx.server.url}/health`);
  assert.is(res.status, 200);
  assert.equal(await res.json(), { status: 'ok' });
  assert.is((await fetch(`${ctx.server.url}/ready`)).status, 200);
});

t('unknown route → 404 problem+json with the request id', async () => {
  const res = await fetch(`${ctx.server.url}/nowhere`);
  assert.is(res.status, 404);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(body['status'], 404);
  assert.is(body['title'], 'Not Found');
  assert.type(body['type'], 'string');
  assert.type(body['detail'], 'string');
  assert.is(body['requestId'], res.headers.get('x-request-id'));
});

t('known path, wrong method → 405 with an Allow header', async () => {
  const res = await fetch(`${ctx.server.url}/health`, { method: 'DELETE' });
  assert.is(res.status, 405);
  assert.match(res.headers.get('allow') ?? '', /GET/);
  assert.is(((await res.json()) as { status: number }).status, 405);
});

t("X-Request-Id › the caller's safe id is echoed; an unsafe or long one is replaced", async () => {
  const mine = await fetch(`${ctx.server.url}/health`, { headers: { 'X-Request-Id': 'req-42.abc' } });
  assert.is(mine.headers.get('x-request-id'), 'req-42.abc');
  const unsafe = await fetch(`${ctx.server.url}/health`, { headers: { 'X-Request-Id': 'a b<script>' } });
  assert.match(unsafe.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const long = await fetch(`${ctx.server.url}/health`, { headers: { 'X-Request-Id': 'x'.repeat(129) } });
  assert.match(long.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const none = await fetch(`${ctx.server.url}/nowhere`);
  assert.match(none.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const problem = await fetch(`${ctx.server.url}/nowhere`, { headers: { 'X-Request-Id': 'req-43' } });
  assert.is(
    ((await problem.json()) as { requestId: string }).requestId,
    'req-43',
    "a problem names the caller's id too",
  );
});

t('body larger than server.max-body-bytes → 413', async () => {
  const res = await postToken(ctx.server.url, {
    grant_type: 'password',
    username: 'john.doe',
    password: 'x'.repeat(4096),
  });
  assert.is(res.status, 413);
  assert.is(((await res.json()) as { error: string }).error, 'invalid_request');
});

t('a restart keeps the users (no duplicates), the signing key set and live tokens', async () => {
  const dir = tempDir();
  const first = await startTestServer({}, dir);
  const tokens = await login(first.url, USERS.john);
  const dbFile = join(dir, 'troupe.db');
  assert.is(statSync(dbFile).mode & 0o777, 0o600, 'the key set is readable by others');
  const jwks = async (url: string): Promise<unknown> => (await fetch(`${url}/.well-known/jwks.json`)).json();
  const published = await jwks(first.url);
  await first.stop();
  const second = await startTestServer({}, dir);
  try {
    assert.equal(await jwks(second.url), published);
    const res = await fetch(`${second.url}/app/listAll`, { headers: bearer(tokens.access_token) });
    assert.is(res.status, 200);
    assert.is(((await res.json()) as unknown[]).length, 2);
    const refreshed = await postToken(
      second.url,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' },
      { Authorization: basic() },
    );
    assert.is(refreshed.status, 200);
  } finally {
    await second.close();
  }
});

t.run();

const slow = serverSuite('overload', { 'actors.ask-timeout-ms': '1' });

slow('an actor that does not answer within its ask timeout → 503 with Retry-After', async (c) => {
  const res = await postToken(c.server.url, { grant_type: 'password', ...USERS.john });
  assert.is(res.status, 503);
  assert.is(res.headers.get('retry-after'), '1');
  assert.is(
    ((await res.json()) as { error: string }).error,
    'temporarily_unavailable',
    'under /oauth the body speaks RFC 6749',
  );
});

slow.run();

const bodies = suite('JSON bodies', {} as { server: TestServer; token: string });
bodies.before(async (c) => {
  c.server = await startTestServer();
  c.token = (await login(c.server.url)).access_token;
});
bodies.after(async (c) => c.server?.close());

bodies('an empty POST (Content-Length: 0, no type) → 400 problem, not 415', async (c) => {
  const res = await fetch(`${c.server.url}/api/user`, { method: 'POST', headers: bearer(c.token) });
  assert.is(res.status, 400);
  assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
});

bodies('malformed JSON → 400 problem, never 500; another media type → 415', async (c) => {
  const bad = await fetch(`${c.server.url}/api/user`, {
    method: 'POST',
    headers: { ...bearer(c.token), 'Content-Type': 'application/json' },
    body: '{"name": ',
  });
  assert.is(bad.status, 400);
  assert.is(((await bad.json()) as { status: number }).status, 400);
  const xml = await fetch(`${c.server.url}/api/user`, {
    method: 'POST',
    headers: { ...bearer(c.token), 'Content-Type': 'application/xml' },
    body: '<user/>',
  });
  assert.is(xml.status, 415);
});

bodies('a JSON body over server.max-body-bytes → 413 problem', async (c) => {
  const res = await fetch(`${c.server.url}/api/user`, {
    method: 'POST',
    headers: { ...bearer(c.token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'x'.repeat(1_100_000), email: 'a@b.co' }),
  });
  assert.is(res.status, 413);
  assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
});

bodies.run();
