/**
 * The typed configuration: the {@link Config} type derived from the schema's keys, and the frozen
 * object it describes, built from the flat values.
 */
import { CONFIG_KEYS, type Parsed } from './schema.ts';

/** `max-body-bytes` → `maxBodyBytes`. */
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
/** `server.cors.allowed-origins` with its value → `{ server: { cors: { allowedOrigins: V } } }`. */
type Nest<K extends string, V> = K extends `${infer Head}.${infer Rest}`
  ? { readonly [P in Camel<Head>]: Nest<Rest, V> }
  : { readonly [P in Camel<K>]: V };
type Intersect<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Flattens intersections for readable hovers and errors. */
type Simplify<T> =
  T extends ReadonlySet<unknown>
    ? T
    : T extends readonly (infer E)[]
      ? readonly E[]
      : T extends object
        ? { readonly [K in keyof T]: Simplify<T[K]> }
        : T;
/** The parsed values with the defaults that depend on other keys filled in. */
export type Resolved = Omit<Parsed, 'security.jwt.issuer' | 'server.headers-timeout-ms'> & {
  readonly 'security.jwt.issuer': string;
  readonly 'server.headers-timeout-ms': number;
};

/**
 * The typed, frozen configuration every other module receives as a parameter: each key of the
 * schema becomes a path of camel-cased segments (`actors.activity.idle-ms` →
 * `config.actors.activity.idleMs`), with the value its parser gives; the key is written once.
 */
export type Config = Simplify<
  {
    readonly production: boolean;
    /**
     * False when `security.jwt.issuer` is unset: its value is then the default, `http://HOST:PORT`,
     * which the first start on a data directory keeps for every later one (`composition/issuer.ts`).
     */
    readonly issuerConfigured: boolean;
    /** The files this configuration was read from, for the start-up line: each path as given, or undefined. */
    readonly files: { readonly properties: string | undefined; readonly clients: string | undefined };
  } & Intersect<{ [K in keyof Resolved & string]: Nest<K, Resolved[K]> }[keyof Resolved & string]>
>;

/** `{ 'a.b-c': 1 }` → `{ a: { bC: 1 } }`: the object {@link Config} describes, every key present (unset ones undefined). */
export function nest(flat: Resolved): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) {
    const value: unknown = flat[key];
    const path = key.split('.').map((segment) => segment.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()));
    const last = path.pop() as string;
    let node = root;
    for (const segment of path) node = (node[segment] ??= {}) as Record<string, unknown>;
    node[last] = value;
  }
  return root;
}

/** Freezes `value` and everything in it (a Set is kept as it is). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !(value instanceof Set) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
