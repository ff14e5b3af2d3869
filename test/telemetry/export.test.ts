/**
 * The server as operators run it (`npm start`'s node command, with `--import` of the register
 * file): with the standard OTEL_* environment it exports its traces over OTLP/HTTP, here to a
 * receiver on loopback; without it no OpenTelemetry SDK is even loaded.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer } from '../helpers/child.ts';
import { tempDir } from '../helpers/server.ts';
import { basic, postToken, USERS } from '../helpers/tokens.ts';
import { waitFor } from '../helpers/wait.ts';

interface Export {
  readonly contentType: string;
  readonly body: Buffer;
}

/** An OTLP/HTTP receiver on loopback: it keeps every POST to /v1/traces and answers 200. */
async function receiver(): Promise<{ server: Server; url: string; exports: Export[] }> {
  const exports: Export[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces')
        exports.push({ contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      res.writeHead(200, { 'Content-Type': req.headers['content-type'] ?? 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports };
}

const otelFree = (): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('OTEL_') && value !== undefined) env[key] = value;
  return env;
};

interface JsonSpan {
  readonly traceId: string;
  readonly name: string;
  readonly kind: number;
}
interface JsonExport {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly { key: string; value: { stringValue?: string } }[] };
    readonly scopeSpans: readonly { readonly spans: readonly JsonSpan[] }[];
  }[];
}

const s = suite('OTLP/HTTP export');

for (const protocol of ['http/json', 'http/protobuf'] as const) {
  s(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} › the request's trace reaches the collector`, async () => {
    const collector = await receiver();
    const dataDir = tempDir();
    const server = await startChildServer(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'troupe-export-test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      // A proxy in front sends the traceparent, so the server continues its trace.
      SERVER_TRUSTED_PROXIES: '1',
    });
    try {
      const traceId = randomBytes(16).toString('hex');
      const res = await postToken(
        server.url,
        { grant_type: 'password', ...USERS.admin },
        { Authorization: basic(), traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      );
      assert.is(res.status, 200);
      const carrying = () =>
        collector.exports.filter((e) =>
          protocol === 'http/json' ? e.body.toString().includes(traceId) : e.body.includes(Buffer.from(traceId, 'hex')),
        );
      await waitFor(() => carrying().length > 0, 'an export carrying the trace', 10_000, 20);
      const first = carrying()[0];
      assert.ok(first);
      if (protocol === 'http/protobuf') {
        assert.is(first.contentType, 'application/x-protobuf');
        assert.ok(first.body.includes(Buffer.from('troupe-export-test')), 'the service name is the resource');
        return;
      }
      assert.match(first.contentType, /^application\/json/);
      const bodies = () => collector.exports.map((e) => JSON.parse(e.body.toString()) as JsonExport);
      const names = () =>
        bodies()
          .flatMap((b) => b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((scope) => scope.spans)))
          .filter((span) => span.traceId === traceId)
          .map((span) => span.name);
      await waitFor(() => names().includes('POST /oauth/token'), 'the SERVER span exported', 10_000, 20);
      assert.ok(names().includes('process token'), names().join(', '));
      const service = bodies()[0]?.resourceSpans[0]?.resource.attributes.find((a) => a.key === 'service.name');
      assert.is(service?.value.stringValue, 'troupe-export-test');
      for (const e of collector.exports) assert.not.ok(e.body.includes(Buffer.from(USERS.admin.password)));
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      collector.server.close();
    }
  });
}

/** Which OpenTelemetry modules a process started with the register file loaded, and whether tracing is on. */
async function probe(env: Record<string, string>): Promise<{ enabled: boolean; global: boolean; otel: string[] }> {
  // Records every module URL resolved after it (Node's synchronous module hooks).
  const hook = `import { registerHooks } from 'node:module'; globalThis.loaded = [];
    registerHooks({ resolve(s, c, next) { const r = next(s, c); globalThis.loaded.push(r.url); return r; } });`;
  const script = `const t = await import('./src/telemetry/tracing.ts');
    console.log(JSON.stringify({ enabled: t.tracingEnabled(),
      global: globalThis[Symbol.for('opentelemetry.js.api.1')] !== undefined,
      otel: globalThis.loaded.filter((u) => u.includes('@opentelemetry/sdk')) }));
    await t.shutdownTracing();`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(hook)}`,
      '--import',
      './src/telemetry/register.ts',
      '--input-type=module',
      '-e',
      script,
    ],
    { env },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { enabled: boolean; global: boolean; otel: string[] };
}

s('no OTEL_* environment › no SDK is loaded and nothing is registered', async () => {
  const off = await probe(otelFree());
  assert.equal(off, { enabled: false, global: false, otel: [] });
  const none = await probe({ ...otelFree(), OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' });
  assert.equal(none, { enabled: false, global: false, otel: [] });
});

s('OTEL_TRACES_EXPORTER=console › the SDK is loaded and tracing is on (the probe sees it)', async () => {
  const on = await probe({ ...otelFree(), OTEL_TRACES_EXPORTER: 'console' });
  assert.ok(on.enabled);
  assert.ok(on.global);
  assert.ok(on.otel.some((url) => url.includes('@opentelemetry/sdk-node')));
});

s.run();
