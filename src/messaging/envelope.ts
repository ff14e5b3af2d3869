/**
 * The message envelope: while tracing is on, a message sent in a traced context travels wrapped
 * with the sender's W3C trace context (`traceparent`, `tracestate`), as Orleans and Proto.Actor
 * carry it in their message headers; the receiving actor handles it in a span of its own under the
 * sender's. While tracing is off nothing is wrapped and each hook is one boolean test.
 */
import {
  activeCarrier,
  contextOf,
  inSpan,
  ROOT_CONTEXT,
  SpanKind,
  context,
  tracingEnabled,
  type TraceCarrier,
} from '../telemetry/tracing.ts';

const ENVELOPE = Symbol('troupe.envelope');

interface Envelope {
  readonly [ENVELOPE]: TraceCarrier;
  readonly message: unknown;
}

const isEnvelope = (value: unknown): value is Envelope =>
  typeof value === 'object' && value !== null && ENVELOPE in value;

/** The message as it goes into a mailbox: wrapped with the active trace context when there is one. */
export function seal(message: unknown): unknown {
  if (!tracingEnabled()) return message;
  const carrier = activeCarrier();
  return carrier ? ({ [ENVELOPE]: carrier, message } satisfies Envelope) : message;
}

/** The message an envelope carries (or the message itself, never wrapped). */
export const unseal = (value: unknown): unknown => (isEnvelope(value) ? value.message : value);

/** The kind of actor at `parts`: its name at the top level, `parent/*` for the children of one parent. */
const kindOf = (parts: readonly string[]): string =>
  parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join('/')}/*`;

const typeOf = (message: unknown): string => {
  const type = typeof message === 'object' && message !== null && 'type' in message ? message.type : undefined;
  return typeof type === 'string' ? type.slice(0, 64) : 'unknown';
};

/**
 * Runs the handler of a mailbox entry while tracing is on: in a span under the sender's when it came in an envelope
 * (messaging conventions: the actor system, the actor's path, the message's kind), and outside any
 * trace otherwise, so that work started by a timer is never taken for part of an earlier request.
 */
export function handleSealed<T>(
  value: unknown,
  path: { readonly parts: readonly string[]; toString(): string },
  handle: (message: unknown) => Promise<T>,
): Promise<T> {
  if (!isEnvelope(value)) return context.with(ROOT_CONTEXT, () => handle(value));
  const kind = kindOf(path.parts);
  const attributes = {
    'messaging.system': 'nact',
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': path.toString(),
    'messaging.nact.actor.kind': kind,
    'messaging.nact.message.type': typeOf(value.message),
  };
  const message = value.message;
  return inSpan(`process ${kind}`, attributes, SpanKind.CONSUMER, () => handle(message), contextOf(value[ENVELOPE]));
}
