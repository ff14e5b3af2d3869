/**
 * One request with a `traceparent` from a trusted proxy is one trace: its SERVER span continues the
 * proxy's, and the parent chain runs unbroken from it through every actor hop to the store and
 * BCrypt spans. Without a trusted proxy, a caller's `traceparent` is only a link.
 */
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTracing } from '../../src/telemetry/sdk.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { bearer, login, postToken, USERS } from '../helpers/tokens.ts';
import { waitFor } from '../helpers/wait.ts';

const exporter = new InMemorySpanExporter();
const s = suite(
  'tracing',
  {} as { server: TestServer; direct: TestServer; stop: () => Promise<void>; token: string; logs: string[] },
);

s.before(async (c) => {
  c.stop = startTracing([new SimpleSpanProcessor({ exporter })]);
  c.logs = [];
  const sink = { write: (line: string) => c.logs.push(line) } as unknown as NodeJS.WritableStream;
  // Behind a proxy that sets traceparent, as in production.
  c.server = await startTestServer({ 'logging.level': 'info', 'server.trusted-proxies': '1' }, undefined, sink);
  // Callers connecting directly: their headers are their own.
  c.direct = await startTestServer({ 'logging.level': 'info' }, undefined, sink);
  c.token = (await login(c.server.url, USERS.john)).access_token;
});
s.after(async (c) => {
  await c.direct?.close();
  await c.server?.close();
  await c.stop?.();
});

const newTrace = () => ({ traceId: randomBytes(16).toString('hex'), parentId: randomBytes(8).toString('hex') });
const traceparent = (t: { traceId: string; parentId: string }) => `00-${t.traceId}-${t.parentId}-01`;
const spansOf = (traceId: string): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);

/** The names from `span` up to the trace's root, asserting that each parent is in the trace. */
function chainOf(span: ReadableSpan, spans: readonly ReadableSpan[], callerSpanId: string): string[] {
  const names: string[] = [];
  let current: ReadableSpan | undefined = span;
  while (current) {
    names.push(current.name);
    const parentId: string | undefined = current.parentSpanContext?.spanId;
    if (current.kind === SpanKind.SERVER) {
      assert.is(parentId, callerSpanId, 'the SERVER span continues the caller');
      return names.reverse();
    }
    current = spans.find((candidate) => candidate.spanContext().spanId === parentId);
    assert.ok(current, `the parent of ${names.at(-1)} is in the trace`);
  }
  throw new Error('no SERVER span');
}

async function tracedSpans(t: { traceId: string }, expected: (spans: readonly ReadableSpan[]) => boolean) {
  await waitFor(() => expected(spansOf(t.traceId)), 'the spans of the trace', 5000);
  return spansOf(t.traceId);
}

s('GET /api/employee/:id › SERVER → EmployeeActor → store, one trace', async (c) => {
  const created = await fetch(`${c.server.url}/api/employee/create`, {
    method: 'POST',
    headers: { ...bearer(c.token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Trace Able', dateOfBirth: '1990-01-02' }),
  });
  const { id } = (await created.json()) as { id: string };
  const t = newTrace();
  const res = await fetch(`${c.server.url}/api/employee/${id}`, {
    headers: { ...bearer(c.token), traceparent: traceparent(t), tracestate: 'vendor=1' },
  });
  assert.is(res.status, 200);
  const spans = await tracedSpans(t, (all) => all.some((span) => span.attributes['db.system'] === 'sqlite'));
  const server = spans.find((span) => span.kind === SpanKind.SERVER);
  assert.is(server?.name, 'GET /api/employee/:id');
  assert.is(server?.attributes['http.route'], '/api/employee/:id');
  assert.is(server?.attributes['http.response.status_code'], 200);
  assert.is(server?.attributes['http.request.method'], 'GET');
  const store = spans.find((span) => span.attributes['db.collection.name'] === 'employees');
  assert.ok(store);
  assert.is(store.kind, SpanKind.CLIENT);
  assert.equal(chainOf(store, spans, t.parentId), ['GET /api/employee/:id', 'process employees', store.name]);
  const actor = spans.find((span) => span.name === 'process employees');
  assert.is(actor?.attributes['messaging.system'], 'nact');
  assert.is(actor?.attributes['messaging.nact.message.type'], 'Get');
  assert.match(String(actor?.attributes['messaging.destination.name']), /employees$/);
});

s('POST /api/users/activity › router and ActivityActor are two spans down to the store', async (c) => {
  const user = await fetch(`${c.server.url}/api/user`, {
    method: 'POST',
    headers: { ...bearer(c.token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Span Person', email: `span-${Date.now()}@example.com` }),
  });
  const { id } = (await user.json()) as { id: string };
  const t = newTrace();
  const res = await fetch(`${c.server.url}/api/users/activity`, {
    method: 'POST',
    headers: { ...bearer(c.token), 'Content-Type': 'application/json', traceparent: traceparent(t) },
    body: JSON.stringify({ userId: id, type: 'LOGGED_IN', detail: {} }),
  });
  assert.is(res.status, 201);
  const spans = await tracedSpans(t, (all) => all.some((span) => span.attributes['db.collection.name'] === 'activity'));
  const store = spans.find((span) => span.attributes['db.collection.name'] === 'activity');
  assert.ok(store);
  assert.equal(chainOf(store, spans, t.parentId), [
    'POST /api/users/activity',
    'process activity',
    'process activity/*',
    store.name,
  ]);
});

s('POST /oauth/token › password grant: TokenActor, BCrypt and the store in one trace', async (c) => {
  const t = newTrace();
  const res = await postToken(
    c.server.url,
    { grant_type: 'password', ...USERS.admin },
    {
      Authorization: `Basic ${Buffer.from('troupe-client:troupe-secret').toString('base64')}`,
      traceparent: traceparent(t),
    },
  );
  assert.is(res.status, 200);
  const spans = await tracedSpans(t, (all) => all.some((span) => span.name === 'bcrypt compare'));
  // The client's secret was checked by an earlier request (remembered): one BCrypt check, the password's.
  const bcrypt = spans.find((span) => span.name === 'bcrypt compare');
  assert.ok(bcrypt);
  const chain = chainOf(bcrypt, spans, t.parentId);
  assert.is(chain[0], 'POST /oauth/token');
  assert.is(chain[1], 'process token');
  assert.is(chain.at(-1), 'bcrypt compare');
  const user = spans.find((span) => span.attributes['db.operation.name'] === 'findByUsername');
  assert.ok(user);
  assert.equal(chainOf(user, spans, t.parentId).slice(0, 2), ['POST /oauth/token', 'process token']);
  // One ask: the request reaches one actor once; what TokenActor tells itself (the throttle's
  // admission, BCrypt's verdict) follows under that one message, and no other actor is asked.
  const server = spans.find((span) => span.kind === SpanKind.SERVER);
  assert.ok(server);
  const asked = spans.filter(
    (span) => span.parentSpanContext?.spanId === server.spanContext().spanId && span.name.startsWith('process '),
  );
  assert.equal(
    asked.map((span) => span.name),
    ['process token'],
  );
  assert.equal(
    [...new Set(spans.filter((span) => span.name.startsWith('process ')).map((span) => span.name))],
    ['process token'],
  );
  for (const span of spans)
    for (const value of Object.values(span.attributes))
      assert.not.match(String(value), /admin-password|troupe-secret/, `${span.name} records no secret`);
});

s('a request without traceparent starts a trace of its own', async (c) => {
  const before = new Set(exporter.getFinishedSpans().map((span) => span.spanContext().traceId));
  const res = await fetch(`${c.server.url}/app/listAll`, { headers: bearer(c.token) });
  assert.is(res.status, 200);
  await waitFor(
    () => exporter.getFinishedSpans().some((span) => span.name === 'GET /app/listAll'),
    'the SERVER span',
    5000,
  );
  const server = exporter.getFinishedSpans().find((span) => span.name === 'GET /app/listAll');
  assert.ok(server);
  assert.is(server.parentSpanContext, undefined);
  assert.not.ok(before.has(server.spanContext().traceId));
});

s("without a trusted proxy a caller's traceparent is a link, not the parent, whatever its sampled flag", async (c) => {
  for (const flags of ['01', '00']) {
    const t = newTrace();
    const res = await fetch(`${c.direct.url}/health`, {
      headers: { traceparent: `00-${t.traceId}-${t.parentId}-${flags}` },
    });
    assert.is(res.status, 200);
    const linked = () =>
      exporter
        .getFinishedSpans()
        .find((span) => span.kind === SpanKind.SERVER && span.links.some((l) => l.context.traceId === t.traceId));
    await waitFor(() => linked() !== undefined, `the SERVER span (flags ${flags})`, 5000);
    const server = linked();
    assert.ok(server);
    assert.is(server.name, 'GET /health');
    assert.is(server.parentSpanContext, undefined, 'a trace of its own');
    assert.is.not(server.spanContext().traceId, t.traceId);
    assert.is(server.links[0]?.context.spanId, t.parentId);
    assert.is(spansOf(t.traceId).length, 0, "nothing recorded under the caller's trace id");
  }
});

s("without a trusted proxy the request's log lines carry the server's trace id", async (c) => {
  const t = newTrace();
  await fetch(`${c.direct.url}/app/listAll`, {
    headers: { ...bearer(c.token), traceparent: traceparent(t), 'X-Request-Id': `direct-${t.traceId}` },
  });
  const lines = () => c.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
  await waitFor(() => lines().some((l) => l['callerRequestId'] === `direct-${t.traceId}`), 'the request line', 5000);
  const line = lines().find((l) => l['callerRequestId'] === `direct-${t.traceId}`);
  assert.match(String(line?.['trace_id']), /^[0-9a-f]{32}$/);
  assert.is.not(line?.['trace_id'], t.traceId);
  assert.not.ok(
    lines().some((l) => l['trace_id'] === t.traceId),
    "no line under the caller's trace id",
  );
});

s('log lines written inside a span carry trace_id and span_id', async (c) => {
  const t = newTrace();
  await fetch(`${c.server.url}/app/listAll`, { headers: { ...bearer(c.token), traceparent: traceparent(t) } });
  const line = c.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['trace_id'] === t.traceId);
  assert.ok(line, 'the request line carries the trace id');
  assert.match(String(line['span_id']), /^[0-9a-f]{16}$/);
});

s.run();
