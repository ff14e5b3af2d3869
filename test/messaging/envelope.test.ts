/**
 * The trace envelope, at the level of the typed nact wrapper: while tracing is on, a message sent
 * inside a span is handled in a span under it, a crash still reaches supervision with the message
 * itself (so the sender is answered), and a message sent outside any trace is handled outside one.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ask } from '../../src/messaging/ask.ts';
import { spawn, startSystem, stopSystem, tell, type ActorSystem, type Ref } from '../../src/messaging/nact.ts';
import { ok, type Reply } from '../../src/messaging/reply.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import { startTracing } from '../../src/telemetry/sdk.ts';
import { waitFor } from '../helpers/wait.ts';

type Msg =
  | { type: 'Echo'; sender: Ref<Reply<string>> }
  | { type: 'Boom'; sender: Ref<Reply<string>> }
  | { type: 'Note'; sender: Ref<Reply<string>> };

const exporter = new InMemorySpanExporter();
const t = suite('messaging: the trace envelope', {} as { system: ActorSystem; stop: () => Promise<void> });

t.before((c) => {
  c.stop = startTracing([new SimpleSpanProcessor({ exporter })]);
});
t.after(async (c) => c.stop?.());
t.before.each((c) => {
  exporter.reset();
  c.system = startSystem(`envelope-${Math.random().toString(36).slice(2)}`);
});
t.after.each((c) => stopSystem(c.system));

const spawnEcho = (system: ActorSystem, seen: string[]): Ref<Msg> =>
  spawn<null, Msg>(
    system,
    (state, msg) => {
      seen.push(msg.type);
      if (msg.type === 'Boom') throw new Error('boom');
      tell(msg.sender, ok(trace.getActiveSpan()?.spanContext().traceId ?? 'none'));
      return state;
    },
    { name: 'echo', initialState: () => null, onCrash: replyThenResume(() => {}) },
  );

t('an ask inside a span is handled in a span under it, with the messaging attributes', async (c) => {
  const echo = spawnEcho(c.system, []);
  const tracer = trace.getTracer('test');
  const reply = await tracer.startActiveSpan('caller', async (span) => {
    const answer = await ask(echo, (sender: Ref<Reply<string>>): Msg => ({ type: 'Echo', sender }), 1000);
    span.end();
    return { answer, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
  });
  assert.equal(reply.answer, ok(reply.traceId), 'the handler runs inside the trace');
  await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'process echo'), 'the actor span');
  const span = exporter.getFinishedSpans().find((s) => s.name === 'process echo');
  assert.is(span?.parentSpanContext?.spanId, reply.spanId);
  assert.is(span?.attributes['messaging.system'], 'nact');
  assert.is(span?.attributes['messaging.nact.message.type'], 'Echo');
  assert.match(String(span?.attributes['messaging.destination.name']), /echo$/);
});

t('a crash in a traced message is answered by supervision and marks the span failed', async (c) => {
  const seen: string[] = [];
  const echo = spawnEcho(c.system, seen);
  const reply = await trace.getTracer('test').startActiveSpan('caller', async (span) => {
    const answer = await ask(echo, (sender: Ref<Reply<string>>): Msg => ({ type: 'Boom', sender }), 1000);
    span.end();
    return answer;
  });
  assert.is(reply.ok ? 'ok' : reply.code, 'internal');
  assert.equal(seen, ['Boom'], 'the handler saw the message, not its envelope');
  await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'process echo'), 'the actor span');
  assert.is(exporter.getFinishedSpans().find((s) => s.name === 'process echo')?.status.code, SpanStatusCode.ERROR);
});

t('a message sent outside any span is handled outside any trace, with no span', async (c) => {
  const echo = spawnEcho(c.system, []);
  const reply = await ask(echo, (sender: Ref<Reply<string>>): Msg => ({ type: 'Note', sender }), 1000);
  assert.equal(reply, ok('none'));
  assert.is(exporter.getFinishedSpans().length, 0);
});

t.run();
