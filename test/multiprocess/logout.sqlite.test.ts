/**
 * RP-initiated logout across two processes on one SQLite data directory: a browser signed in at
 * one is signed out at the other, and the first no longer finds the session on its very next
 * request (the store is the truth); a confirmation page served by one process is accepted by the other.
 */
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authorizeUrl, openForm, pageOf, pkce, redirectedTo, submit } from '../helpers/authorize.ts';
import type { ChildServer } from '../helpers/child.ts';
import { clientsFile } from '../helpers/clients.ts';
import { startInstances, type Instances } from '../helpers/instances.ts';
import { postToken, USERS } from '../helpers/tokens.ts';

const APP = {
  id: 'multi-logout-app',
  secret: 'multi-logout-secret',
  redirect: 'http://127.0.0.1:9/multi/callback',
  bye: 'http://127.0.0.1:9/multi/bye',
};

interface Ctx {
  instances: Instances;
  a: ChildServer;
  b: ChildServer;
}
const ctx = {} as Ctx;
const t = suite('RP-initiated logout across processes (SQLite)', ctx);

t.before(async () => {
  ctx.instances = await startInstances(2, {
    SECURITY_CLIENTS_FILE: clientsFile([
      {
        client_id: APP.id,
        client_secret: bcrypt.hashSync(APP.secret, 4),
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [APP.redirect],
        post_logout_redirect_uris: [APP.bye],
        grant_types: ['authorization_code'],
        scope: 'openid',
        consent: 'implicit',
      },
    ]),
  });
  const [a, b] = ctx.instances.servers;
  if (!a || !b) throw new Error('two instances expected');
  Object.assign(ctx, { a, b });
});
t.after(async () => ctx.instances?.close());

const { challenge, verifier } = pkce();
const request = (more: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: APP.id,
  redirect_uri: APP.redirect,
  scope: 'openid',
  state: 's',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...more,
});

/** Signs in at `server`: the browser's session cookie and the id_token of the code. */
async function signIn(server: ChildServer): Promise<{ cookie: string; idToken: string }> {
  const form = await openForm(authorizeUrl(server.url, request()));
  const res = await submit(server.url, form, USERS.john);
  assert.is(res.status, 303);
  const cookie = (res.headers.getSetCookie().find((h) => h.startsWith('troupe_session=')) ?? '').split(';')[0] ?? '';
  const token = await postToken(
    server.url,
    {
      grant_type: 'authorization_code',
      code: redirectedTo(res).searchParams.get('code') ?? '',
      redirect_uri: APP.redirect,
      code_verifier: verifier,
      client_id: APP.id,
      client_secret: APP.secret,
    },
    {},
  );
  return { cookie, idToken: ((await token.json()) as { id_token: string }).id_token };
}

/** Whether `server` signs the browser in through its session (`prompt=none` gets a code). */
async function signedInAt(server: ChildServer, cookie: string): Promise<boolean> {
  const res = await fetch(authorizeUrl(server.url, request({ prompt: 'none' })), {
    redirect: 'manual',
    headers: { Cookie: cookie },
  });
  return redirectedTo(res).searchParams.has('code');
}

t('signed in at one, logged out at the other: the first refuses the session on its next request', async () => {
  const { cookie, idToken } = await signIn(ctx.a);
  assert.ok(await signedInAt(ctx.a, cookie));
  assert.ok(await signedInAt(ctx.b, cookie), 'one session for both');
  const out = await fetch(
    `${ctx.b.url}/oauth/logout?${new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: APP.bye, state: 'x' }).toString()}`,
    { redirect: 'manual', headers: { Cookie: cookie } },
  );
  assert.is(out.status, 303);
  assert.is(out.headers.get('location'), `${APP.bye}?state=x`);
  assert.not.ok(await signedInAt(ctx.a, cookie), 'ended at the other process too');
  assert.not.ok(await signedInAt(ctx.b, cookie));
});

t('a confirmation page served by one process signs out at the other', async () => {
  const { cookie } = await signIn(ctx.b);
  const page = await pageOf(
    await fetch(
      `${ctx.a.url}/oauth/logout?client_id=${APP.id}&post_logout_redirect_uri=${encodeURIComponent(APP.bye)}`,
      {
        headers: { Cookie: cookie },
      },
    ),
  );
  assert.is(page.status, 200);
  const body = new URLSearchParams(page.fields);
  body.set('decision', 'logout');
  const res = await fetch(`${ctx.b.url}/oauth/logout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
    body: body.toString(),
  });
  assert.is(res.status, 303);
  assert.is(res.headers.get('location'), APP.bye);
  assert.not.ok(await signedInAt(ctx.a, cookie));
});

t.run();
