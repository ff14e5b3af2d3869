/**
 * Spans around the parts that leave the event loop, added here in the composition root so that no
 * adapter changes: every SQLite store call (database conventions: `db.system` and the operation,
 * never a value), and BCrypt on the worker pool. MongoDB calls are traced by the driver's own
 * instrumentation, which `src/telemetry/sdk.ts` loads. Used only while tracing is on.
 */
import type { PasswordHasher } from '../security/passwords.ts';
import type { Stores } from '../stores/stores.ts';
import { inSpan, SpanKind } from '../telemetry/tracing.ts';

type Port = Record<string, unknown>;

/** The port with each of its functions run in a CLIENT span `<operation> <store>`, the operation named as the function. */
function tracedPort<T extends object>(port: T, store: string): T {
  const traced: Port = {};
  for (const [operation, member] of Object.entries(port)) {
    if (typeof member !== 'function') {
      traced[operation] = member;
      continue;
    }
    const call = member as (...args: unknown[]) => unknown;
    const attributes = {
      'db.system': 'sqlite',
      'db.system.name': 'sqlite',
      'db.operation.name': operation,
      'db.collection.name': store,
    };
    traced[operation] = (...args: unknown[]): unknown =>
      inSpan(`${operation} ${store}`, attributes, SpanKind.CLIENT, () => call.apply(port, args));
  }
  return traced as T;
}

/** SQLite stores whose every call is a span; MongoDB stores as they are (the driver traces them). */
export function tracedStores(stores: Stores): Stores {
  if (stores.kind !== 'SQLite') return stores;
  return {
    ...stores,
    // `credentials`: the accounts' store as its spans were published.
    accounts: tracedPort(stores.accounts, 'credentials'),
    refreshTokens: tracedPort(stores.refreshTokens, 'refresh_tokens'),
    revocations: tracedPort(stores.revocations, 'revocations'),
    users: tracedPort(stores.users, 'users'),
    activity: tracedPort(stores.activity, 'activity'),
    employees: tracedPort(stores.employees, 'employees'),
    throttle: tracedPort(stores.throttle, 'login_throttle'),
    keys: {
      access: tracedPort(stores.keys.access, 'signing_keys'),
      id_token: tracedPort(stores.keys.id_token, 'signing_keys'),
    },
    codes: tracedPort(stores.codes, 'authorization_codes'),
    consents: tracedPort(stores.consents, 'consents'),
    tickets: tracedPort(stores.tickets, 'consent_tickets'),
    sessions: tracedPort(stores.sessions, 'sessions'),
  };
}

/** BCrypt work on the worker pool as an INTERNAL span (`bcrypt compare`, `bcrypt hash`), no argument recorded. */
export function tracedHasher(hasher: PasswordHasher): PasswordHasher {
  const attributes = { 'troupe.pool': 'bcrypt' };
  return {
    verify: (password, hash) =>
      inSpan('bcrypt compare', attributes, SpanKind.INTERNAL, () => hasher.verify(password, hash)),
    hash: (password, cost) => inSpan('bcrypt hash', attributes, SpanKind.INTERNAL, () => hasher.hash(password, cost)),
    close: () => hasher.close(),
  };
}
