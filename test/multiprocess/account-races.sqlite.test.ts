/**
 * An account change made by a real server process is final for work in flight in another process
 * on the same data directory: a TokenActor here (its BCrypt verdict, or its read after it, held at
 * a gate) stands for the other process, and the change is made over HTTP meanwhile, at a second
 * instance or at a server of two workers. Both sign with one configured key, so a token minted
 * here is one the server would accept but for the account's version.
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import type { Request } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { Client } from '../../src/security/clients.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { startChildServer, type ChildServer } from '../helpers/child.ts';
import { gate, holdingHasher, holdingStores, type Holds } from '../helpers/gate.ts';
import { askWithProbe } from '../helpers/probe.ts';
import { tempDir } from '../helpers/server.ts';
import { CLIENT, SETTINGS, startTokenActor, TEST_SIGNING_KEY, type TokenActorSetup } from '../helpers/token-actor.ts';
import { bearer, login } from '../helpers/tokens.ts';

/** A client without the refresh_token grant: its logins are an access token alone. */
const SERVICE: Client = { ...CLIENT, clientId: 'no-refresh', grantTypes: ['password'] };
const PASSWORD = 'elm-password-1';

interface Ctx {
  dir: string;
  server: ChildServer;
  system: ActorSystem;
  hasher: PasswordHasher;
  here: TokenActorSetup;
  holds: Holds;
  admin: string;
}

for (const [name, env] of Object.entries<Record<string, string>>({
  'another instance': {},
  'a server of two workers': { SERVER_WORKERS: '2' },
})) {
  const ctx = { holds: {} } as Ctx;
  const t = suite(`account change at ${name}, work in flight here (SQLite)`, ctx);

  t.before(async () => {
    ctx.dir = tempDir('troupe-account-races-');
    ctx.server = await startChildServer(ctx.dir, {
      ...env,
      SECURITY_SIGNING_KEY: TEST_SIGNING_KEY,
      SECURITY_JWT_ISSUER: SETTINGS.issuer,
    });
    ctx.hasher = createPasswordHasher(1);
    ctx.system = startSystem(`account-races-${name.replaceAll(' ', '-')}`);
    ctx.here = await startTokenActor(ctx.system, {
      hasher: holdingHasher(ctx.hasher, ctx.holds),
      dataDir: ctx.dir,
      clients: [CLIENT, SERVICE],
      accounts: holdingStores(ctx.holds).accounts,
    });
    ctx.admin = (await login(ctx.server.url, { username: 'admin', password: 'admin-password' })).access_token;
  });
  t.after(async () => {
    stopSystem(ctx.system);
    ctx.here.db.close();
    await ctx.hasher.close();
    ctx.server.child.kill('SIGTERM');
    await ctx.server.exited;
    rmSync(ctx.dir, { recursive: true, force: true });
  });

  const send = <R>(request: Request<Token.Command, R>): Promise<R> =>
    askWithProbe(ctx.system, ctx.here.token, request, 10_000);
  const value = <T>(reply: Reply<T, string>): T => {
    if (!reply.ok) throw new Error(`expected ok, got ${reply.code}: ${reply.message}`);
    return reply.value;
  };
  const admin = async (method: string, path: string, json?: unknown): Promise<Response> =>
    fetch(`${ctx.server.url}${path}`, {
      method,
      headers: { ...bearer(ctx.admin), ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  /** Asked twice: with two workers, each may answer one. */
  const statuses = async (token: string): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < 2; i++)
      out.push((await fetch(`${ctx.server.url}/app/user`, { headers: bearer(token) })).status);
    return out;
  };
  const created = async (username: string): Promise<number> => {
    const res = await admin('POST', '/app/admin/users', { username, password: PASSWORD, roles: ['ADMIN', 'USER'] });
    assert.is(res.status, 201);
    return ((await res.json()) as { id: number }).id;
  };

  t('a login held at its BCrypt check here is refused after a demotion or a reset there', async () => {
    for (const [username, change] of [
      ['eve', (id: number) => admin('PATCH', `/app/admin/users/${id}`, { roles: ['USER'] })],
      ['fay', (id: number) => admin('PUT', `/app/admin/users/${id}/password`, { password: 'fir-password-2' })],
    ] as const) {
      const id = await created(username);
      const hold = gate();
      ctx.holds.verify = hold;
      const pending = send(Token.issueToken({ clientId: 'troupe-client', username, password: PASSWORD }));
      await hold.reached;
      assert.ok([200, 204].includes((await change(id)).status));
      hold.release();
      const reply = await pending;
      assert.equal(reply.ok ? 'ok' : [reply.code, reply.message], ['grant.invalid', 'Bad credentials'], username);
    }
  });

  t('a token minted here works there; a login from a read older than a change there is refused', async () => {
    const id = await created('gil');
    const before = value(await send(Token.issueToken({ clientId: 'no-refresh', username: 'gil', password: PASSWORD })));
    assert.equal(await statuses(before.accessToken), [200, 200], 'the key and issuer are shared: accepted there');
    const hold = gate();
    ctx.holds.read = hold;
    const pending = send(Token.issueToken({ clientId: 'no-refresh', username: 'gil', password: PASSWORD }));
    await hold.reached;
    assert.is((await admin('DELETE', `/app/admin/users/${id}/sessions`)).status, 204);
    hold.release();
    // Its login's record is written only at the version read: refused, nothing answered.
    const stale = await pending;
    assert.equal('ok' in stale && !stale.ok ? stale.code : 'answered', 'grant.invalid');
    assert.equal(await statuses(before.accessToken), [401, 401]);
  });

  t.run();
}
