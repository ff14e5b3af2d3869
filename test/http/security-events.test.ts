/**
 * Security events: one record each, with its stable `event` name, the user or client, the client
 * address, the request and trace ids, and nothing secret.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SECURITY_EVENTS } from '../../http/security-events.ts';
import { codeFor, pkce } from '../helpers/authorize.ts';
import { CLIENTS, clientsFile, SERVICE, WEB } from '../helpers/clients.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, CLIENT_ID, CLIENT_SECRET, login, postToken, USERS } from '../helpers/tokens.ts';
import { waitFor } from '../helpers/wait.ts';

type Line = Record<string, unknown>;
const s = suite('security events', {} as { server: TestServer; lines: string[] });

s.before(async (c) => {
  c.lines = [];
  const sink = { write: (line: string) => c.lines.push(line) } as unknown as NodeJS.WritableStream;
  c.server = await startTestServer(
    {
      'logging.level': 'info',
      'security.clients-file': clientsFile(CLIENTS),
      'security.login-throttle.max-failures-per-user': '2',
      'security.login-throttle.window-seconds': '60',
    },
    undefined,
    sink,
  );
});
s.after(async (c) => c.server?.close());

const traceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, header: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The one record of `event` written for the request whose caller sent the trace `traceId` (no
 * trusted proxy here: the caller's trace id is recorded apart, and the ids are the server's).
 */
async function eventOf(c: { lines: string[] }, event: string, traceId: string): Promise<Line> {
  const find = () =>
    c.lines.map((l) => JSON.parse(l) as Line).filter((l) => l['event'] === event && l['caller_trace_id'] === traceId);
  await waitFor(() => find().length > 0, `${event} logged`, 3000);
  const found = find();
  assert.is(found.length, 1, `one ${event} record`);
  const record = found[0] as Line;
  assert.is(record['client_address'], '127.0.0.1');
  assert.match(String(record['request_id']), UUID);
  assert.is(record['trace_id'], null, 'tracing is off, and the caller’s trace is not the request’s');
  return record;
}

const noSecrets = (c: { lines: string[] }, ...secrets: string[]) => {
  for (const line of c.lines) for (const secret of secrets) assert.not.ok(line.includes(secret), 'no secret logged');
};

s('the documented events are the stable set', () => {
  const documented = [
    ...readFileSync('docs/operations.md', 'utf8').matchAll(/^\| `([a-z_]+\.[a-z_]+)` \| (?:info|warn) /gm),
  ];
  assert.equal(documented.map((m) => m[1]).sort(), Object.keys(SECURITY_EVENTS).sort());
  assert.equal(Object.keys(SECURITY_EVENTS).sort(), [
    'client.authentication_failed',
    'client.token_issued',
    'code.reuse_detected',
    'consent.denied',
    'consent.granted',
    'consent.withdrawn',
    'login.failed',
    'login.succeeded',
    'login.throttled',
    'password.change_failed',
    'password.changed',
    'session.ended',
    'session.started',
    'token.refreshed',
    'token.reuse_detected',
    'token.revoked',
  ]);
});

s('POST /oauth/token › password grant → login.succeeded with username, client, address, trace id', async (c) => {
  const t = traceparent();
  const res = await postToken(
    c.server.url,
    { grant_type: 'password', ...USERS.admin },
    {
      Authorization: basic(),
      traceparent: t.header,
    },
  );
  assert.is(res.status, 200);
  const record = await eventOf(c, 'login.succeeded', t.traceId);
  assert.is(record['username'], 'admin');
  assert.is(record['client_id'], CLIENT_ID);
  assert.is(record['level'], 30);
  const { access_token, refresh_token } = (await res.json()) as { access_token: string; refresh_token: string };
  noSecrets(c, USERS.admin.password, CLIENT_SECRET, access_token, refresh_token);
});

s('wrong password → login.failed; past the limit → login.throttled', async (c) => {
  for (let i = 0; i < 2; i++) {
    const t = traceparent();
    const res = await postToken(
      c.server.url,
      { grant_type: 'password', username: 'john.doe', password: 'nope-1234' },
      {
        Authorization: basic(),
        traceparent: t.header,
      },
    );
    assert.is(res.status, 400);
    const record = await eventOf(c, 'login.failed', t.traceId);
    assert.is(record['username'], 'john.doe');
    assert.is(record['level'], 40);
  }
  const t = traceparent();
  const res = await postToken(
    c.server.url,
    { grant_type: 'password', ...USERS.john },
    {
      Authorization: basic(),
      traceparent: t.header,
    },
  );
  assert.is(res.status, 429);
  assert.is((await eventOf(c, 'login.throttled', t.traceId))['username'], 'john.doe');
  noSecrets(c, 'nope-1234', USERS.john.password);
});

s('refresh → token.refreshed; the spent token again → token.reuse_detected', async (c) => {
  const { refresh_token } = await login(c.server.url, USERS.admin);
  assert.ok(refresh_token);
  const first = traceparent();
  const res = await postToken(
    c.server.url,
    { grant_type: 'refresh_token', refresh_token },
    {
      Authorization: basic(),
      traceparent: first.header,
    },
  );
  assert.is(res.status, 200);
  assert.is((await eventOf(c, 'token.refreshed', first.traceId))['client_id'], CLIENT_ID);
  const again = traceparent();
  const reused = await postToken(
    c.server.url,
    { grant_type: 'refresh_token', refresh_token },
    {
      Authorization: basic(),
      traceparent: again.header,
    },
  );
  assert.is(reused.status, 400);
  const record = await eventOf(c, 'token.reuse_detected', again.traceId);
  assert.is(record['client_id'], CLIENT_ID);
  assert.is(record['level'], 40);
  noSecrets(c, refresh_token);
});

s('a code redeemed twice → code.reuse_detected for the second; other refusals are not reported', async (c) => {
  const { challenge, verifier } = pkce();
  // Signed in as admin: john.doe is throttled by the test before.
  const code = await codeFor(c.server.url, WEB.id, WEB.redirect, challenge, USERS.admin);
  const redeem = (form: Record<string, string>, traceparent: string) =>
    postToken(
      c.server.url,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: WEB.redirect,
        code_verifier: verifier,
        client_id: WEB.id,
        client_secret: WEB.secret,
        ...form,
      },
      { traceparent },
    );
  const unknown = traceparent();
  const refused = await redeem({ code: 'x'.repeat(43) }, unknown.header);
  assert.is(refused.status, 400);
  const first = traceparent();
  const res = await redeem({}, first.header);
  assert.is(res.status, 200);
  const { access_token, refresh_token } = (await res.json()) as { access_token: string; refresh_token: string };
  const again = traceparent();
  const replayed = await redeem({}, again.header);
  assert.is(replayed.status, 400);
  assert.is(((await replayed.json()) as { error: string }).error, 'invalid_grant');
  const record = await eventOf(c, 'code.reuse_detected', again.traceId);
  assert.is(record['client_id'], WEB.id);
  assert.is(record['username'], undefined);
  assert.is(record['level'], 40);
  const other = c.lines
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l['event'] === 'code.reuse_detected' && l['caller_trace_id'] !== again.traceId);
  assert.equal(other, [], 'neither the unknown code nor the first redemption is reported');
  noSecrets(c, code, verifier, WEB.secret, access_token, refresh_token);
});

s('client_credentials → client.token_issued with the scope granted; a refused one is not reported', async (c) => {
  const service = { Authorization: basic(SERVICE.id, SERVICE.secret) };
  const wider = traceparent();
  const refused = await postToken(
    c.server.url,
    { grant_type: 'client_credentials', scope: 'write' },
    { ...service, traceparent: wider.header },
  );
  assert.is(refused.status, 400);
  const t = traceparent();
  const res = await postToken(
    c.server.url,
    { grant_type: 'client_credentials' },
    { ...service, traceparent: t.header },
  );
  assert.is(res.status, 200);
  const record = await eventOf(c, 'client.token_issued', t.traceId);
  assert.is(record['client_id'], SERVICE.id);
  assert.is(record['scope'], 'read');
  assert.is(record['username'], undefined);
  assert.is(record['level'], 30);
  const other = c.lines
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l['event'] === 'client.token_issued' && l['caller_trace_id'] === wider.traceId);
  assert.equal(other, [], 'the refused grant is not reported');
  const { access_token } = (await res.json()) as { access_token: string };
  noSecrets(c, SERVICE.secret, access_token);
});

s('POST /oauth/revoke → token.revoked', async (c) => {
  const { access_token } = await login(c.server.url, USERS.admin);
  const t = traceparent();
  const res = await fetch(`${c.server.url}/oauth/revoke`, {
    method: 'POST',
    headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded', traceparent: t.header },
    body: new URLSearchParams({ token: access_token }).toString(),
  });
  assert.is(res.status, 200);
  assert.is((await eventOf(c, 'token.revoked', t.traceId))['client_id'], CLIENT_ID);
  noSecrets(c, access_token);
});

s('a wrong client secret → client.authentication_failed', async (c) => {
  const t = traceparent();
  const res = await postToken(
    c.server.url,
    { grant_type: 'password', ...USERS.admin },
    {
      Authorization: basic(CLIENT_ID, 'not-the-secret'),
      traceparent: t.header,
    },
  );
  assert.is(res.status, 401);
  const record = await eventOf(c, 'client.authentication_failed', t.traceId);
  assert.is(record['client_id'], CLIENT_ID);
  assert.is(record['username'], undefined);
  noSecrets(c, 'not-the-secret', USERS.admin.password);
});

s('a right secret sent the way its client did not register → client.authentication_failed', async (c) => {
  const t = traceparent();
  const res = await postToken(
    c.server.url,
    { grant_type: 'client_credentials', client_id: SERVICE.id, client_secret: SERVICE.secret },
    { traceparent: t.header },
  );
  assert.is(res.status, 401);
  assert.is((await eventOf(c, 'client.authentication_failed', t.traceId))['client_id'], SERVICE.id);
  noSecrets(c, SERVICE.secret);
});

s("a caller's own X-Request-Id and traceparent are recorded apart, never as the request's ids", async (c) => {
  const t = traceparent();
  const res = await postToken(
    c.server.url,
    { grant_type: 'password', ...USERS.admin },
    { Authorization: basic(), traceparent: t.header, 'X-Request-Id': 'chosen-by-caller-1' },
  );
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-request-id'), 'chosen-by-caller-1', 'still echoed to the caller');
  const record = await eventOf(c, 'login.succeeded', t.traceId);
  assert.is(record['caller_request_id'], 'chosen-by-caller-1');
  assert.is(record['caller_trace_id'], t.traceId);
  assert.is.not(record['request_id'], 'chosen-by-caller-1');
  const line = c.lines
    .map((l) => JSON.parse(l) as Line)
    .find((l) => l['msg'] === 'request' && l['callerRequestId'] === 'chosen-by-caller-1');
  assert.is(line?.['requestId'], record['request_id'], 'the request line and the event share the server’s id');
});

s('without a traceparent (and tracing off) the trace id is null', async (c) => {
  const before = c.lines.length;
  await login(c.server.url, USERS.admin);
  await waitFor(
    () => c.lines.slice(before).some((l) => (JSON.parse(l) as Line)['event'] === 'login.succeeded'),
    'login.succeeded logged',
  );
  const record = c.lines
    .slice(before)
    .map((l) => JSON.parse(l) as Line)
    .find((l) => l['event'] === 'login.succeeded');
  assert.is(record?.['trace_id'], null);
  assert.is(record?.['caller_trace_id'], null);
  assert.is(record?.['caller_request_id'], null);
});

s.run();

const proxied = suite('security events behind a trusted proxy', {} as { server: TestServer; lines: string[] });
proxied.before(async (c) => {
  c.lines = [];
  const sink = { write: (line: string) => c.lines.push(line) } as unknown as NodeJS.WritableStream;
  c.server = await startTestServer({ 'logging.level': 'info', 'server.trusted-proxies': '1' }, undefined, sink);
});
proxied.after(async (c) => c.server?.close());

proxied("the proxy's X-Request-Id and traceparent are the request's ids", async (c) => {
  const t = traceparent();
  const res = await postToken(
    c.server.url,
    { grant_type: 'password', ...USERS.admin },
    {
      Authorization: basic(),
      traceparent: t.header,
      'X-Request-Id': 'set-by-proxy-1',
      'X-Forwarded-For': '198.51.100.7',
    },
  );
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-request-id'), 'set-by-proxy-1');
  const find = () =>
    c.lines
      .map((l) => JSON.parse(l) as Line)
      .find((l) => l['event'] === 'login.succeeded' && l['trace_id'] === t.traceId);
  await waitFor(() => find() !== undefined, 'login.succeeded logged', 3000);
  const record = find() as Line;
  assert.is(record['request_id'], 'set-by-proxy-1');
  assert.is(record['client_address'], '198.51.100.7');
  assert.is(record['caller_request_id'], null);
  assert.is(record['caller_trace_id'], null);
});

proxied.run();
