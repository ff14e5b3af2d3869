/**
 * Two independent instances (two `npm start` processes, two ports) on one store behave as one
 * service: each rule below runs real processes over loopback and fails if the rule breaks. The
 * suite runs on one SQLite data directory (instances.sqlite.test.ts) and on MongoDB, each instance
 * with a data directory of its own as on two machines (instances.mongo.test.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildServer } from '../helpers/child.ts';
import { introspectsActive, listAllStatus, startInstances, type Instances } from '../helpers/instances.ts';
import { basic, login, postToken, USERS, type TokenResponse } from '../helpers/tokens.ts';
import { send } from '../helpers/user-data.ts';

export interface InstancesTarget {
  /** The store's name, for the suite's. */
  readonly name: string;
  /** Environment of both instances besides the suite's own, such as MONGODB_URI. */
  readonly env: () => Promise<Record<string, string>>;
  readonly separateDataDirs: boolean;
  /** How long a revocation at one instance may go unnoticed at the other (MongoDB: the sync interval). */
  readonly revocationBoundMs: number;
  readonly teardown?: () => Promise<void>;
}

interface Ctx {
  instances: Instances;
  a: ChildServer;
  b: ChildServer;
  target: InstancesTarget;
}
const ctx = {} as Ctx;

/** Waits out the documented bound within which a revocation reaches every instance. */
const afterRevocation = (): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ctx.target.revocationBoundMs));

const from = (address: string): Record<string, string> => ({ 'X-Forwarded-For': address });
const refresh = (server: ChildServer, refreshToken: string | undefined): Promise<Response> =>
  postToken(server.url, { grant_type: 'refresh_token', refresh_token: refreshToken ?? '' });

function rules(t: ReturnType<typeof suite<Ctx>>): void {
  t('a token issued by one instance is accepted by the other', async () => {
    const fromA = await login(ctx.a.url);
    const fromB = await login(ctx.b.url);
    assert.is(await listAllStatus(ctx.b, fromA.access_token), 200);
    assert.is(await listAllStatus(ctx.a, fromB.access_token), 200);
    assert.ok(await introspectsActive(ctx.b, fromA.access_token));
  });

  t(
    'a token revoked at one instance is refused by the other on its next request, though it verified (and cached) it before',
    async () => {
      const token = (await login(ctx.a.url)).access_token;
      assert.is(await listAllStatus(ctx.b, token), 200);
      assert.is(await listAllStatus(ctx.b, token), 200);
      const revoke = await fetch(`${ctx.a.url}/oauth/revoke`, {
        method: 'POST',
        headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `token=${token}`,
      });
      assert.is(revoke.status, 200);
      await afterRevocation();
      assert.is(await listAllStatus(ctx.b, token), 401);
      assert.is(await introspectsActive(ctx.b, token), false);
    },
  );

  t("refresh-token reuse at one instance revokes the login's access tokens at the other", async () => {
    const first = await login(ctx.a.url);
    const rotated = (await (await refresh(ctx.b, first.refresh_token)).json()) as TokenResponse;
    for (const token of [first, rotated]) assert.is(await listAllStatus(ctx.b, token.access_token), 200);
    assert.is((await refresh(ctx.a, first.refresh_token)).status, 400, 'reuse');
    await afterRevocation();
    for (const token of [first, rotated]) assert.is(await listAllStatus(ctx.b, token.access_token), 401);
  });

  t(
    'a refresh token presented to both instances at once: one rotation, and the reuse revokes the login at both, the winner’s tokens too (twenty rounds)',
    async () => {
      for (let round = 0; round < 20; round++) {
        const first = await login(ctx.a.url);
        const answers = await Promise.all([refresh(ctx.a, first.refresh_token), refresh(ctx.b, first.refresh_token)]);
        assert.equal(answers.map((r) => r.status).sort(), [200, 400], `round ${round}`);
        const winner = (await answers.find((r) => r.status === 200)?.json()) as TokenResponse;
        await afterRevocation();
        for (const server of [ctx.a, ctx.b]) {
          for (const token of [first, winner])
            assert.is(await listAllStatus(server, token.access_token), 401, `round ${round}: an access token survived`);
          assert.is((await refresh(server, winner.refresh_token)).status, 400, `round ${round}: the new refresh token`);
        }
      }
    },
  );

  t(
    'concurrent conditional updates with one If-Match across instances: exactly one 200 (employees and users)',
    async () => {
      const token = (await login(ctx.a.url)).access_token;
      const employee = await send(ctx.a.url, 'POST', '/api/employee/create', {
        token,
        json: { name: 'Race Er', dateOfBirth: '1980-01-01' },
      });
      const id = (employee.body as { id: string }).id;
      const updates = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          send((i % 2 === 0 ? ctx.a : ctx.b).url, 'PUT', `/api/employee/update?id=${id}`, {
            token,
            json: { name: `Race ${i}` },
            headers: { 'If-Match': '"1"' },
          }),
        ),
      );
      assert.equal(updates.map((u) => u.status).sort(), [200, ...Array<number>(9).fill(412)]);
      const user = await send(ctx.b.url, 'POST', '/api/user', {
        token,
        json: { name: 'Race Er', email: 'race@example.com' },
      });
      const userId = (user.body as { id: string }).id;
      const puts = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          send((i % 2 === 0 ? ctx.a : ctx.b).url, 'PUT', '/api/user', {
            token,
            json: { id: userId, name: `Race ${i}` },
            headers: { 'If-Match': '"1"' },
          }),
        ),
      );
      assert.equal(puts.map((u) => u.status).sort(), [200, ...Array<number>(9).fill(412)]);
    },
  );

  t('concurrent creates with one email across instances: exactly one 201, the rest 409', async () => {
    const token = (await login(ctx.a.url)).access_token;
    const creates = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        send((i % 2 === 0 ? ctx.a : ctx.b).url, 'POST', '/api/user', {
          token,
          json: { name: `Twin ${i}`, email: i % 3 === 0 ? 'TWIN@example.com' : 'twin@example.com' },
        }),
      ),
    );
    assert.equal(creates.map((c) => c.status).sort(), [201, ...Array<number>(9).fill(409)]);
  });

  t(
    'login throttling counts for the service: two instances allow no more guesses than one, and share the known addresses',
    async () => {
      const form = (password: string) => ({ grant_type: 'password', username: USERS.admin.username, password });
      // 10.2.0.1 has logged in as admin: it is known, to both instances.
      assert.is(
        (await postToken(ctx.a.url, form(USERS.admin.password), { Authorization: basic(), ...from('10.2.0.1') }))
          .status,
        200,
      );
      const guesses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          postToken((i % 2 === 0 ? ctx.a : ctx.b).url, form(`wrong-${i}`), {
            Authorization: basic(),
            ...from(`10.1.0.${i}`),
          }),
        ),
      );
      const statuses = guesses.map((g) => g.status);
      assert.is(statuses.filter((s) => s === 400).length, 3, `judged guesses: ${statuses.join(' ')}`);
      assert.is(statuses.filter((s) => s === 429).length, 7);
      assert.is(
        (await postToken(ctx.b.url, form(USERS.admin.password), { Authorization: basic(), ...from('10.3.0.1') }))
          .status,
        429,
        'a new address is held back',
      );
      assert.is(
        (await postToken(ctx.b.url, form(USERS.admin.password), { Authorization: basic(), ...from('10.2.0.1') }))
          .status,
        200,
        'the known address passes at the other instance',
      );
    },
  );

  t(
    'client authentications count per client for the service: two instances allow no more guesses than one',
    async () => {
      const guesses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          postToken(
            (i % 2 === 0 ? ctx.a : ctx.b).url,
            { grant_type: 'client_credentials' },
            { Authorization: basic('guessed-client', `wrong-${i}`), ...from(`10.4.0.${i}`) },
          ),
        ),
      );
      const statuses = guesses.map((g) => g.status);
      assert.is(statuses.filter((s) => s === 401).length, 3, `judged guesses: ${statuses.join(' ')}`);
      assert.is(statuses.filter((s) => s === 429).length, 7);
      const later = await postToken(
        ctx.b.url,
        { grant_type: 'client_credentials' },
        { Authorization: basic('guessed-client', 'wrong'), ...from('10.4.1.1') },
      );
      assert.is(later.status, 429, 'a new address is held back at either instance');
    },
  );

  t(
    'an activity acknowledged through one instance is in the history read through the other right after; both read one order',
    async () => {
      const token = (await login(ctx.a.url)).access_token;
      const user = await send(ctx.a.url, 'POST', '/api/user', {
        token,
        json: { name: 'Hist Ory', email: 'history@example.com' },
      });
      const userId = (user.body as { id: string }).id;
      const history = async (server: ChildServer): Promise<string[]> =>
        (
          (await send(server.url, 'GET', `/api/users/activity?userId=${userId}&limit=500`, { token })).body as {
            activities: { type: string }[];
          }
        ).activities.map((a) => a.type);
      assert.equal(await history(ctx.b), ['USER_CREATED'], 'B now holds a cached history');
      const acknowledged: string[] = [];
      for (let i = 0; i < 6; i++) {
        const type = `STEP_${i}`;
        const server = i % 2 === 0 ? ctx.a : ctx.b;
        assert.is(
          (await send(server.url, 'POST', '/api/users/activity', { token, json: { userId, type } })).status,
          201,
        );
        acknowledged.unshift(type);
        assert.equal(await history(i % 2 === 0 ? ctx.b : ctx.a), [...acknowledged, 'USER_CREATED'], `after ${type}`);
      }
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          send((i % 2 === 0 ? ctx.a : ctx.b).url, 'POST', '/api/users/activity', {
            token,
            json: { userId, type: `BURST_${i}` },
          }),
        ),
      );
      const [onA, onB] = await Promise.all([history(ctx.a), history(ctx.b)]);
      assert.is(onA.length, 27);
      assert.equal(onA, onB);
    },
  );

  t('writes from both instances at once are all answered 201: never a busy database as a 5xx', async () => {
    const token = (await login(ctx.a.url)).access_token;
    const user = await send(ctx.a.url, 'POST', '/api/user', {
      token,
      json: { name: 'Busy Bee', email: 'busy@example.com' },
    });
    const userId = (user.body as { id: string }).id;
    const write = (i: number) => {
      const url = (i % 2 === 0 ? ctx.a : ctx.b).url;
      if (i % 3 === 0)
        return send(url, 'POST', '/api/employee/create', {
          token,
          json: { name: `Busy ${i}`, dateOfBirth: '1990-01-01' },
        });
      if (i % 3 === 1) return send(url, 'POST', '/api/users/activity', { token, json: { userId, type: 'BUSY' } });
      return send(url, 'POST', '/api/user', { token, json: { name: `Busy ${i}`, email: `busy${i}@example.com` } });
    };
    const statuses = (await Promise.all(Array.from({ length: 300 }, (_, i) => write(i)))).map((r) => r.status);
    assert.equal(
      statuses.filter((s) => s >= 500),
      [],
    );
    assert.ok(
      statuses.every((s) => s === 201),
      statuses.filter((s) => s !== 201).join(' '),
    );
  });
}

/** Registers the suite for one store. */
export function instancesSuite(target: InstancesTarget): void {
  const t = suite<Ctx>(`several processes: two instances on one store (${target.name})`, ctx);
  t.before(async () => {
    ctx.target = target;
    ctx.instances = await startInstances(
      2,
      {
        SERVER_TRUSTED_PROXIES: '1', // so that tests can speak for several client addresses
        SECURITY_LOGIN_THROTTLE_MAX_FAILURES_PER_USER: '3',
        ...(await target.env()),
      },
      { separateDataDirs: target.separateDataDirs },
    );
    [ctx.a, ctx.b] = ctx.instances.servers as [ChildServer, ChildServer];
  });
  t.after(async () => {
    await ctx.instances?.close();
    await target.teardown?.();
  });
  rules(t);
  t.run();
}
