import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serverSuite, startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, bearer, login, postToken, USERS } from '../helpers/tokens.ts';
import { waitFor } from '../helpers/wait.ts';

const ORIGIN = 'https://app.example';
const ctx = {} as { server: TestServer };
const t = suite('operations: metrics and CORS', ctx);
t.before(async () => {
  ctx.server = await startTestServer({ 'server.cors.allowed-origins': `${ORIGIN}, https://other.example` });
});
t.after(async () => ctx.server?.close());

t('GET /metrics › requests by route template and status, actor messages, live actors, mailboxes', async () => {
  const { url } = ctx.server;
  const token = (await login(url)).access_token;
  await fetch(`${url}/app/listAll`, { headers: bearer(token) });
  await fetch(`${url}/nowhere/${crypto.randomUUID()}`);
  assert.is((await fetch(`${url}/app/listAll`)).status, 401);
  assert.is((await fetch(`${url}/api/user`, { method: 'PATCH', headers: bearer(token) })).status, 405);
  const created = await fetch(`${url}/api/user`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Mo', email: 'mo@example.com' }),
  });
  assert.is(created.status, 201);
  const res = await fetch(`${url}/metrics`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const text = await res.text();
  assert.match(text, /http_requests_total\{method="GET",route="\/app\/listAll",status="200"\} 1/);
  assert.match(text, /http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
  assert.match(
    text,
    /http_requests_total\{method="GET",route="\/app\/listAll",status="401"\} 1/,
    'refused before routing, still labelled by its route',
  );
  assert.match(text, /http_requests_total\{method="PATCH",route="\/api\/user",status="405"\} 1/);
  assert.match(text, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/app\/listAll"\}/);
  assert.match(text, /actor_messages_total\{actor="token",outcome="handled"\} \d+/);
  assert.match(text, new RegExp(`actor_live\\{actor="activity/\\*",pid="${process.pid}"\\} 1`));
  assert.match(text, /actor_mailbox_depth\{actor="token",pid="\d+"\} 0/);
  // Handling time per actor kind: every handled message is counted in +Inf, the buckets are cumulative.
  const handled = Number(/actor_messages_total\{actor="token",outcome="handled"\} (\d+)/.exec(text)?.[1]);
  const count = Number(/actor_message_duration_seconds_count\{actor="token"\} (\d+)/.exec(text)?.[1]);
  assert.ok(handled > 0);
  assert.is(count, handled);
  assert.match(text, new RegExp(`actor_message_duration_seconds_bucket\\{le="\\+Inf",actor="token"\\} ${count}\\n`));
  assert.match(text, /actor_message_duration_seconds_sum\{actor="token"\} [0-9.e-]+/);
  assert.match(text, /actor_message_duration_seconds_bucket\{le="2.5",actor="activity\/\*"\} [1-9]/);
  assert.not.match(text, /nowhere/);
});

t("GET /metrics › a password grant passes TokenActor's mailbox once, whatever its answer", async () => {
  const { url } = ctx.server;
  const handled = async (): Promise<number> =>
    Number(
      /actor_messages_total\{actor="token",outcome="handled"\} (\d+)/.exec(
        await (await fetch(`${url}/metrics`)).text(),
      )?.[1] ?? 0,
    );
  const before = await handled();
  await login(url);
  assert.is(await handled(), before + 1, 'a login: one message');
  const wrong = await postToken(
    url,
    { grant_type: 'password', username: USERS.john.username, password: 'not-the-password' },
    { Authorization: basic() },
  );
  assert.is(wrong.status, 400);
  assert.is(await handled(), before + 2, 'a wrong password: one message');
});

t('GET /metrics › live ActivityActors read 0 while none is alive: at start-up and after an idle stop', async () => {
  const server = await startTestServer({ 'actors.activity.idle-ms': '2000' });
  try {
    const live = async (): Promise<string | undefined> =>
      new RegExp(`^actor_live\\{actor="activity/\\*",pid="${process.pid}"\\} (\\d+)$`, 'm').exec(
        await (await fetch(`${server.url}/metrics`)).text(),
      )?.[1];
    assert.is(await live(), '0', 'no user has had an ActivityActor yet');
    const token = (await login(server.url)).access_token;
    const created = await fetch(`${server.url}/api/user`, {
      method: 'POST',
      headers: { ...bearer(token), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Mo', email: 'mo@example.com' }),
    });
    assert.is(created.status, 201);
    assert.is(await live(), '1');
    await waitFor(
      async () => (await live()) === '0',
      'actor_live{actor="activity/*"} back to 0 after the idle stop',
      10_000,
      50,
    );
  } finally {
    await server.close();
  }
});

t('GET /metrics › an ask that times out is counted by route', async () => {
  const slow = await startTestServer({ 'actors.ask-timeout-ms': '1' });
  try {
    assert.is((await postToken(slow.url, { grant_type: 'password', ...USERS.john })).status, 503);
    const text = await (await fetch(`${slow.url}/metrics`)).text();
    assert.match(text, /actor_ask_timeouts_total\{route="\/oauth\/token"\} 1/);
  } finally {
    await slow.close();
  }
});

t('CORS › a preflight from an allowed origin is answered without a token, also on /oauth/token', async () => {
  for (const path of ['/oauth/token', '/api/user', '/app/listAll']) {
    const res = await fetch(`${ctx.server.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        Origin: ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    assert.ok(res.status === 204 || res.status === 200, `${path}: ${res.status}`);
    assert.is(res.headers.get('access-control-allow-origin'), ORIGIN);
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /Authorization/);
  }
  const actual = await fetch(`${ctx.server.url}/health`, { headers: { Origin: ORIGIN } });
  assert.is(actual.headers.get('access-control-allow-origin'), ORIGIN);
  assert.match(actual.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
});

t('CORS › a PATCH preflight from an allowed origin is allowed, and the PATCH itself is answered to it', async () => {
  const admin = (await login(ctx.server.url, USERS.admin)).access_token;
  const page = (await (
    await fetch(`${ctx.server.url}/app/admin/users?username=john.doe`, { headers: bearer(admin) })
  ).json()) as { items: { id: number }[] };
  const path = `/app/admin/users/${page.items[0]?.id ?? 0}`;
  const preflight = await fetch(`${ctx.server.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: ORIGIN,
      'Access-Control-Request-Method': 'PATCH',
      'Access-Control-Request-Headers': 'authorization,content-type,if-match',
    },
  });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get('access-control-allow-origin'), ORIGIN);
  const methods = (preflight.headers.get('access-control-allow-methods') ?? '').split(',').map((m) => m.trim());
  assert.ok(methods.includes('PATCH'), methods.join(','));
  for (const m of ['GET', 'POST', 'PUT', 'DELETE']) assert.ok(methods.includes(m), m);
  const patched = await fetch(`${ctx.server.url}${path}`, {
    method: 'PATCH',
    headers: { ...bearer(admin), Origin: ORIGIN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ firstName: 'John' }),
  });
  assert.is(patched.status, 200);
  assert.is(patched.headers.get('access-control-allow-origin'), ORIGIN);
});

t(
  'CORS › another origin gets no CORS headers; its preflight is any OPTIONS: 401 without a token under /api',
  async () => {
    const res = await fetch(`${ctx.server.url}/api/user`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    assert.is(res.headers.get('access-control-allow-origin'), null);
    assert.is(res.status, 401);
    const open = await fetch(`${ctx.server.url}/oauth/token`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    assert.is(open.status, 200);
  },
);

t.run();

const none = serverSuite('operations: CORS by default');
none('no origin is allowed by default', async ({ server }) => {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'OPTIONS',
    headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST' },
  });
  assert.is(res.headers.get('access-control-allow-origin'), null);
});
none.run();

const SIGNING_KEY = 'logging-test-signing-key-0123456789-abcdefghijklmnop';
const logs = suite('operations: logs', {} as { server: TestServer; lines: string[] });
logs.before(async (c) => {
  c.lines = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      c.lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  c.server = await startTestServer({ 'logging.level': 'trace', 'security.signing-key': SIGNING_KEY }, undefined, sink);
});
logs.after(async (c) => c.server?.close());

logs('one JSON line per request: request id, method, route template, status, duration', async ({ server, lines }) => {
  const res = await fetch(`${server.url}/health`, { headers: { 'X-Request-Id': 'log-check-1' } });
  assert.is(res.status, 200);
  const line = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l['callerRequestId'] === 'log-check-1');
  assert.ok(line, 'a line for the request');
  assert.match(String(line?.['requestId']), /^[0-9a-f-]{36}$/, "the server's id: no trusted proxy sent the caller's");
  assert.is(line?.['method'], 'GET');
  assert.is(line?.['route'], '/health');
  assert.is(line?.['status'], 200);
  assert.type(line?.['durationMs'], 'number');
});

logs('no password, client secret, token, key or Authorization header is ever logged', async ({ server, lines }) => {
  const secrets: string[] = [USERS.john.password, USERS.admin.password, 'troupe-secret', SIGNING_KEY, basic()];
  const tokens = await login(server.url, USERS.john);
  secrets.push(tokens.access_token, tokens.refresh_token ?? '', tokens.access_token.split('.')[2] ?? '');
  await postToken(server.url, { grant_type: 'password', username: 'admin', password: 'wrong-but-secret-password' });
  secrets.push('wrong-but-secret-password');
  const refreshed = await postToken(server.url, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token ?? '',
  });
  const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
  secrets.push(next.access_token, next.refresh_token);
  await fetch(`${server.url}/app/listAll`, { headers: bearer(next.access_token) });
  await fetch(`${server.url}/app/listAll?access_token=${next.access_token}`, { headers: bearer(next.access_token) });
  await fetch(`${server.url}/app/listAll`, { headers: bearer(`${next.access_token}x`) });
  await postToken(
    server.url,
    { grant_type: 'password', ...USERS.john },
    { Authorization: basic('troupe-client', 'a-wrong-client-secret') },
  );
  secrets.push('a-wrong-client-secret');
  const all = lines.join('\n');
  assert.ok(lines.length >= 8, 'the requests were logged');
  for (const secret of secrets)
    assert.not.ok(secret !== '' && all.includes(secret), `a secret was logged: ${secret.slice(0, 6)}…`);
});

logs.run();
