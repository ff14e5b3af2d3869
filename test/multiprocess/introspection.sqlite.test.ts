/**
 * Introspection across two instances on one SQLite data directory: an access token one instance
 * has introspected before (and keeps in its cache of verified tokens) is inactive there on the very
 * next introspection once the other revokes it, disables its account, demotes it or deletes it.
 */
import * as assert from 'uvu/assert';
import { administeredPairSuite, introspectsActive } from '../helpers/instances.ts';
import { basic, bearer, login } from '../helpers/tokens.ts';

const { t, ctx } = administeredPairSuite('introspection of a cached token across instances (SQLite)');

const admin = (method: string, path: string, json?: unknown): Promise<Response> =>
  fetch(`${ctx.a.url}${path}`, {
    method,
    headers: { ...bearer(ctx.admin), ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });

/** What ends the token's standing, done at A to the account `id`. */
const ENDINGS: Record<string, (id: number, token: string) => Promise<Response>> = {
  'revoked at A': (_id, token) =>
    fetch(`${ctx.a.url}/oauth/revoke`, {
      method: 'POST',
      headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    }),
  'its account disabled at A': (id) => admin('PATCH', `/app/admin/users/${id}`, { enabled: false }),
  'its account demoted at A': (id) => admin('PATCH', `/app/admin/users/${id}`, { roles: ['USER'] }),
  'its account deleted at A': (id) => admin('DELETE', `/app/admin/users/${id}`),
};

let n = 0;
for (const [ending, end] of Object.entries(ENDINGS)) {
  t(`a token introspected at B before is inactive at B on the next introspection once ${ending}`, async () => {
    const username = `intro-${n}`;
    const password = `tulip-garden-${n++}`;
    const made = await admin('POST', '/app/admin/users', {
      username,
      password,
      roles: ['USER', 'ADMIN'],
    });
    assert.is(made.status, 201);
    const id = ((await made.json()) as { id: number }).id;
    const token = (await login(ctx.b.url, { username, password })).access_token;
    assert.ok(await introspectsActive(ctx.b, token));
    assert.ok(await introspectsActive(ctx.b, token), 'verified and cached at B');
    assert.ok((await end(id, token)).ok);
    assert.is(await introspectsActive(ctx.b, token), false);
  });
}

t.run();
