/**
 * A message typed in the REPL is checked against its actor's protocol before it is sent: the same
 * schemas as the HTTP input, so the REPL stores nothing that HTTP would refuse. A message that
 * fails is not sent, and the session prints why in one line.
 */
import { inspect } from 'node:util';
import type { z } from 'zod';
import type { Request } from '../messaging/ask.ts';
import type { ProtocolEntry } from './protocols.ts';
import { plainWords } from '../fields.ts';

export type Checked =
  { readonly ok: true; readonly request: Request<unknown, unknown> } | { readonly ok: false; readonly line: string };

/** The message is built once to be read; the one sent gets the real sender. */
const NO_SENDER = undefined as never;

const plain = plainWords('message');

function describe(issue: z.core.$ZodIssue): string {
  const at = issue.path.map(String);
  const fields =
    issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...at, k].join('.')).join(', ') : at.join('.');
  return fields === '' ? issue.message : `${fields}: ${issue.message}`;
}

const kinds = (entry: ProtocolEntry): string => Object.keys(entry.schemas).join(' | ');

function unknownKind(entry: ProtocolEntry, type: unknown): string {
  const which = type === undefined ? '; the message has no type' : `, not ${inspect(type)}`;
  return `not sent: ${entry.ref} takes ${kinds(entry)}${which}`;
}

/**
 * The message that `request` builds, checked against `entry`'s schemas: what to send (the fields as
 * the schema gives them back: trimmed, defaults filled in, as HTTP would pass them on), or the line
 * that says why it is not sent.
 */
export function checkMessage(entry: ProtocolEntry, request: Request<unknown, unknown>): Checked {
  const message: unknown = request(NO_SENDER);
  if (typeof message !== 'object' || message === null) return { ok: false, line: unknownKind(entry, undefined) };
  const { type, sender: _, ...fields } = message as Record<string, unknown>;
  const schema = typeof type === 'string' && Object.hasOwn(entry.schemas, type) ? entry.schemas[type] : undefined;
  if (!schema) return { ok: false, line: unknownKind(entry, type) };
  const result = schema.safeParse(fields, { error: plain });
  if (!result.success)
    return {
      ok: false,
      line: `not sent: ${String(type)} is not valid (${result.error.issues.map(describe).join('; ')})`,
    };
  const checked = result.data as object;
  return { ok: true, request: (sender) => ({ type, ...checked, sender }) };
}
