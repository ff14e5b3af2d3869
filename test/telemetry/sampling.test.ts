/**
 * Sampling configured off (`OTEL_TRACES_SAMPLER=parentbased_always_off`): a caller's `traceparent`
 * with the sampled flag does not turn it on, unless a trusted proxy sent it (then the parent-based
 * sampler follows the proxy, as configured).
 */
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTracing } from '../../src/telemetry/sdk.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const exporter = new InMemorySpanExporter();
const s = suite(
  'tracing with sampling off',
  {} as { direct: TestServer; proxied: TestServer; stop: () => Promise<void> },
);

s.before(async (c) => {
  const before = process.env['OTEL_TRACES_SAMPLER'];
  process.env['OTEL_TRACES_SAMPLER'] = 'parentbased_always_off';
  try {
    c.stop = startTracing([new SimpleSpanProcessor({ exporter })]);
  } finally {
    if (before === undefined) delete process.env['OTEL_TRACES_SAMPLER'];
    else process.env['OTEL_TRACES_SAMPLER'] = before;
  }
  c.direct = await startTestServer();
  c.proxied = await startTestServer({ 'server.trusted-proxies': '1' });
});
s.after(async (c) => {
  await c.direct?.close();
  await c.proxied?.close();
  await c.stop?.();
});

const sampled = () => {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, header: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
};
const serverSpans = () => exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);

s("a caller's sampled flag records nothing", async (c) => {
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${c.direct.url}/health`, { headers: { traceparent: sampled().header } });
    assert.is(res.status, 200);
  }
  // The proxied request below is recorded; had any of these been, it would have been exported first.
  const t = sampled();
  await fetch(`${c.proxied.url}/health`, { headers: { traceparent: t.header } });
  await waitFor(() => serverSpans().length > 0, 'the proxied request’s span', 5000);
  assert.equal(
    serverSpans().map((span) => span.spanContext().traceId),
    [t.traceId],
    'only the trusted proxy’s sampled request',
  );
});

s("a trusted proxy's sampled flag is followed", async (c) => {
  exporter.reset();
  const t = sampled();
  const res = await fetch(`${c.proxied.url}/health`, { headers: { traceparent: t.header } });
  assert.is(res.status, 200);
  await waitFor(() => serverSpans().length > 0, 'the SERVER span', 5000);
  const span = serverSpans()[0];
  assert.is(span?.spanContext().traceId, t.traceId);
  assert.is(span?.name, 'GET /health');
});

s.run();
