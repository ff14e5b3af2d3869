/** The actor protocols as the REPL presents them: the ref's name, the namespace, the examples, the schemas. */
import type { z } from 'zod';
import * as Accounts from '../../actors/accounts/protocol.ts';
import * as Activity from '../../actors/activity/protocol.ts';
import * as Employee from '../../actors/employee/protocol.ts';
import * as Token from '../../actors/token/protocol.ts';
import * as User from '../../actors/user/protocol.ts';

export type RefName = 'token' | 'accounts' | 'employees' | 'users' | 'activity';

export interface ProtocolEntry {
  /** The REPL global holding the actor's ref. */
  readonly ref: RefName;
  /** The REPL global holding the protocol module. */
  readonly namespace: string;
  readonly actor: string;
  readonly module: Readonly<Record<string, unknown>>;
  /**
   * Message kind → a builder call, such as `User.get({ id: '…' })`, or several for a kind built
   * by several builders (TokenActor's `Grant`, one per grant type).
   */
  readonly examples: Readonly<Record<string, string | readonly string[]>>;
  /** Message kind → the schema of its fields, which a message is checked against before it is sent. */
  readonly schemas: Readonly<Record<string, z.ZodType>>;
  /** Older names of builders that still work (`remove` → `delete`): in scope, never in the examples. */
  readonly aliases?: Readonly<Record<string, string>>;
}

export const PROTOCOLS: readonly ProtocolEntry[] = [
  {
    ref: 'token',
    namespace: 'Token',
    actor: 'TokenActor',
    module: Token,
    examples: Token.examples,
    schemas: Token.schemas,
  },
  {
    ref: 'accounts',
    namespace: 'Accounts',
    actor: 'AccountActor',
    module: Accounts,
    examples: Accounts.examples,
    schemas: Accounts.schemas,
  },
  {
    ref: 'employees',
    namespace: 'Employee',
    actor: 'EmployeeActor',
    module: Employee,
    examples: Employee.examples,
    schemas: Employee.schemas,
    aliases: { remove: 'delete' },
  },
  { ref: 'users', namespace: 'User', actor: 'UserActor', module: User, examples: User.examples, schemas: User.schemas },
  {
    ref: 'activity',
    namespace: 'Activity',
    actor: 'the activity router (one ActivityActor per user id)',
    module: Activity,
    examples: Activity.examples,
    schemas: Activity.schemas,
  },
];

/** The entry named by its ref (`users`) or its namespace (`User`), in any case. */
export function findProtocol(name: string): ProtocolEntry | undefined {
  const wanted = name.trim().toLowerCase();
  return PROTOCOLS.find((p) => p.ref === wanted || p.namespace.toLowerCase() === wanted);
}

/** Each example call of the protocol with the message kind it builds, in the table's order. */
export function exampleCalls(entry: ProtocolEntry): (readonly [kind: string, example: string])[] {
  return Object.entries(entry.examples).flatMap(([kind, examples]) =>
    (typeof examples === 'string' ? [examples] : examples).map((example) => [kind, example] as const),
  );
}

/** The builder functions a protocol's examples call (`User.get(…)` → `get`), and their older names: its client API. */
export function builderNames(entry: ProtocolEntry): string[] {
  const names = exampleCalls(entry).map(([, example]) => /^\w+\.(\w+)\(/.exec(example)?.[1]);
  const all = [...names, ...Object.keys(entry.aliases ?? {})];
  return [...new Set(all.filter((n): n is string => n !== undefined && typeof entry.module[n] === 'function'))];
}

/**
 * The protocol as a REPL global: its builders and nothing else (no schemas, examples or
 * constants), on a null prototype, so that Tab after `User.` lists what makes a message.
 */
export function buildersOf(entry: ProtocolEntry): Readonly<Record<string, unknown>> {
  const builders = Object.fromEntries(builderNames(entry).map((name) => [name, entry.module[name]]));
  return Object.freeze(Object.assign(Object.create(null) as Record<string, unknown>, builders));
}

/** The UserActor's builders under the original message names: `Get`, `Post`, `Put`, `Delete`. */
export const userBuilders = { Get: User.get, Post: User.post, Put: User.put, Delete: User.delete } as const;

/**
 * Builders callable without their namespace: those whose name only one protocol uses (`get` is
 * both User's and Employee's, so it is not among them). UserActor's are already there under the
 * original names ({@link userBuilders}).
 */
export function shortBuilders(): Map<string, unknown> {
  const owners = new Map<string, ProtocolEntry[]>();
  for (const entry of PROTOCOLS) {
    for (const name of builderNames(entry)) owners.set(name, [...(owners.get(name) ?? []), entry]);
  }
  const short = new Map<string, unknown>();
  for (const [name, entries] of owners) {
    if (entries.length === 1 && entries[0] && entries[0].namespace !== 'User') short.set(name, entries[0].module[name]);
  }
  return short;
}
