/**
 * The client_credentials grant costs one signature: no account, refresh-token or revocation store
 * is asked while the token is issued. Its token can still be revoked (by `jti`, until its `exp`),
 * and introspected as the client's own.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { Client } from '../../src/security/clients.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { gate, type Gate } from '../helpers/gate.ts';
import { CLIENT, startTokenActor, type TokenActorSetup } from '../helpers/token-actor.ts';

const SERVICE: Client = {
  ...CLIENT,
  clientId: 'reporting-service',
  grantTypes: ['client_credentials'],
  scopes: ['read', 'write'],
};

interface Ctx {
  system: ActorSystem;
  hasher: PasswordHasher;
  setup: TokenActorSetup;
  /** Every store call the actor made, as `store.method`. */
  calls: string[];
  /** Set by a test: the next signature waits at this gate (once). */
  hold: Gate | undefined;
  /** Set by a test: the next signature fails with this error (once). */
  failure: Error | undefined;
}
const ctx = { calls: [] } as unknown as Ctx;

/** The store with each of its calls noted in `ctx.calls`. */
function noted<T extends object>(store: T, name: string): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const member: unknown = Reflect.get(target, property, receiver);
      if (typeof member !== 'function') return member;
      return (...args: unknown[]): unknown => {
        ctx.calls.push(`${name}.${String(property)}`);
        return (member as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

function value<T>(reply: Reply<T, string>): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.code}: ${reply.message}`);
  return reply.value;
}

const t = suite('TokenActor: the client_credentials grant', ctx);
t.before(async () => {
  ctx.system = startSystem('client-credentials');
  ctx.hasher = createPasswordHasher(1);
  ctx.setup = await startTokenActor(ctx.system, {
    hasher: ctx.hasher,
    clients: [CLIENT, SERVICE],
    accounts: (store) => noted(store, 'accounts'),
    refreshTokens: (store) => noted(store, 'refreshTokens'),
    revocations: (store) => noted(store, 'revocations'),
    signer: (sign) => async (request, nowMs) => {
      const [hold, failure] = [ctx.hold, ctx.failure];
      [ctx.hold, ctx.failure] = [undefined, undefined];
      await hold?.wait();
      if (failure) throw failure;
      return sign(request, nowMs);
    },
  });
});
t.after(async () => {
  stopSystem(ctx.system);
  ctx.setup.db.close();
  await ctx.hasher.close();
});

const issue = (scope?: string[]) =>
  ask(ctx.setup.token, Token.clientCredentials({ clientId: 'reporting-service', scope }), 5000);

t('issuing asks no store: one signature, no refresh token', async () => {
  await issue(); // the actor's first purge runs at its start
  ctx.calls.length = 0;
  const grants = [];
  for (let i = 0; i < 5; i++) grants.push(value(await issue(['read'])));
  assert.equal(ctx.calls, []);
  assert.equal(new Set(grants.map((g) => g.jti)).size, 5, 'a token of its own each time');
  for (const grant of grants) {
    assert.is(grant.refreshToken, undefined);
    assert.equal(grant.scope, ['read']);
  }
  const claims = await ctx.setup.verify(grants[0]?.accessToken ?? '', Date.now());
  assert.equal(
    [claims.username, claims.clientToken, claims.loginId, claims.accountId],
    ['reporting-service', true, undefined, undefined],
  );
});

t('its token is introspected as the client’s own, and revoked by its jti', async () => {
  const { accessToken } = value(await issue());
  const found = value(
    await ask(ctx.setup.token, Token.introspect({ clientId: 'reporting-service', token: accessToken }), 5000),
  );
  assert.equal(found.active && [found.clientToken, found.username, found.scope], [
    true,
    'reporting-service',
    ['read', 'write'],
  ]);
  value(await ask(ctx.setup.token, Token.revoke({ clientId: 'reporting-service', token: accessToken }), 5000));
  const after = value(
    await ask(ctx.setup.token, Token.introspect({ clientId: 'reporting-service', token: accessToken }), 5000),
  );
  assert.is(after.active, false);
});

t('a signature runs beside the mailbox: a client held at its signature holds no other', async () => {
  const held = gate();
  ctx.hold = held;
  const first = issue(['read']);
  await held.reached;
  try {
    // The actor answers the next client, and another message kind, while the first signature waits.
    const second = value(
      await ask(ctx.setup.token, Token.clientCredentials({ clientId: 'reporting-service', scope: ['write'] }), 2000),
    );
    assert.equal(second.scope, ['write']);
    const found = value(
      await ask(ctx.setup.token, Token.introspect({ clientId: 'reporting-service', token: second.accessToken }), 2000),
    );
    assert.is(found.active, true);
  } finally {
    held.release();
  }
  const answered = value(await first);
  assert.equal(answered.scope, ['read']);
});

t('a signature that fails answers its client, and the actor goes on serving', async () => {
  ctx.failure = new Error('the signing key cannot be read');
  const failed = await issue();
  assert.equal(failed.ok ? 'ok' : failed.code, 'internal');
  assert.ok(value(await issue()).accessToken);
});

t('a client not registered for the grant, or a scope it lacks, is refused before any signature', async () => {
  ctx.failure = new Error('no signature should be made');
  const other = await ask(
    ctx.setup.token,
    Token.clientCredentials({ clientId: CLIENT.clientId, scope: undefined }),
    5000,
  );
  assert.equal(other.ok ? 'ok' : other.code, 'grant.unauthorized');
  const scoped = await issue(['admin']);
  assert.equal(scoped.ok ? 'ok' : scoped.code, 'scope.invalid');
  ctx.failure = undefined;
});

t.run();
