/**
 * The sign-in form across two instances on one SQLite data directory: its CSRF key is derived from
 * the signing keys in the store, so a form served by one process signs in at the other, and a
 * token made without that key is refused by both. A consent page decides once, wherever its form is
 * posted, and a withdrawal at one ends at the other a login that has no refresh token.
 */
import { hash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authorizeUrl, decide, openForm, pageOf, pkce, redirectedTo, submit } from '../helpers/authorize.ts';
import type { ChildServer } from '../helpers/child.ts';
import { CLIENTS, clientsFile, PARTNER, WEB, WIDGET } from '../helpers/clients.ts';
import { listAllStatus, startInstances, type Instances } from '../helpers/instances.ts';
import { basic, bearer, login, postToken, USERS, type TokenResponse } from '../helpers/tokens.ts';

interface Ctx {
  instances: Instances;
  a: ChildServer;
  b: ChildServer;
}
const ctx = {} as Ctx;
const t = suite('the sign-in form across instances (SQLite)', ctx);

t.before(async () => {
  ctx.instances = await startInstances(2, { SECURITY_CLIENTS_FILE: clientsFile(CLIENTS) });
  const [a, b] = ctx.instances.servers;
  if (!a || !b) throw new Error('two instances expected');
  Object.assign(ctx, { a, b });
});
t.after(async () => ctx.instances?.close());

const { challenge, verifier } = pkce();
const request = (state: string) => ({
  response_type: 'code',
  client_id: WEB.id,
  redirect_uri: WEB.redirect,
  scope: 'read',
  state,
  code_challenge: challenge,
  code_challenge_method: 'S256',
});

t('a form served by one instance signs in at the other, both ways; the code redeems anywhere', async () => {
  for (const [served, posted] of [
    [ctx.a, ctx.b],
    [ctx.b, ctx.a],
  ] as const) {
    const form = await openForm(authorizeUrl(served.url, request('across')));
    assert.is(form.status, 200);
    const res = await submit(posted.url, form);
    assert.is(res.status, 303);
    const code = redirectedTo(res).searchParams.get('code') ?? '';
    const token = await postToken(
      served.url,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: WEB.redirect,
        code_verifier: verifier,
        client_id: WEB.id,
        client_secret: WEB.secret,
      },
      {},
    );
    assert.is(token.status, 200);
  }
});

t('the consent page of one instance is allowed at the other; a withdrawal at one asks again at both', async () => {
  const partner = { ...request('consent'), client_id: PARTNER.id, redirect_uri: PARTNER.redirect };
  const form = await openForm(authorizeUrl(ctx.a.url, partner));
  const page = await pageOf(await submit(ctx.a.url, form));
  assert.is(page.status, 200);
  const allowed = await decide(ctx.b.url, page, 'allow', page.cookie ?? form.cookie);
  assert.is(allowed.status, 303);
  assert.ok(redirectedTo(allowed).searchParams.get('code'));
  const remembered = await submit(ctx.a.url, await openForm(authorizeUrl(ctx.a.url, partner)));
  assert.is(remembered.status, 303, 'remembered by the other instance');
  const own = (await login(ctx.b.url, USERS.john)).access_token;
  const withdrawn = await fetch(`${ctx.b.url}/app/me/consents/${PARTNER.id}`, {
    method: 'DELETE',
    headers: bearer(own),
  });
  assert.is(withdrawn.status, 204);
  for (const at of [ctx.a, ctx.b])
    assert.is((await submit(at.url, await openForm(authorizeUrl(at.url, partner)))).status, 200, 'asked again');
});

/** Signs john in at `at` for `client`, whose consent he has not given: the consent page and the browser's cookie. */
async function consentPage(at: ChildServer, client: typeof PARTNER | typeof WIDGET, state: string) {
  const params = { ...request(state), client_id: client.id, redirect_uri: client.redirect };
  const form = await openForm(authorizeUrl(at.url, params));
  const page = await pageOf(await submit(at.url, form));
  assert.is(page.status, 200, 'the consent page');
  return { page, cookie: page.cookie ?? form.cookie };
}

const withdraw = async (at: ChildServer, clientId: string): Promise<void> => {
  const own = (await login(at.url, USERS.john)).access_token;
  const res = await fetch(`${at.url}/app/me/consents/${clientId}`, { method: 'DELETE', headers: bearer(own) });
  assert.is(res.status, 204);
};

t('a consent form allowed at one instance is refused at the other, Allow or Deny, after a withdrawal too', async () => {
  const { page, cookie } = await consentPage(ctx.a, PARTNER, 'once');
  const allowed = await decide(ctx.a.url, page, 'allow', cookie);
  assert.is(allowed.status, 303);
  assert.ok(redirectedTo(allowed).searchParams.get('code'));
  for (const decision of ['allow', 'deny']) {
    const again = await decide(ctx.b.url, page, decision, cookie);
    assert.is(again.status, 400, decision);
    assert.is(again.headers.get('location'), null, decision);
  }
  await withdraw(ctx.b, PARTNER.id);
  const afterWithdrawal = await decide(ctx.b.url, page, 'allow', cookie);
  assert.is(afterWithdrawal.status, 400, 'not granted again without the password');
  assert.is(afterWithdrawal.headers.get('location'), null);
  const partner = { ...request('asked'), client_id: PARTNER.id, redirect_uri: PARTNER.redirect };
  assert.is((await submit(ctx.a.url, await openForm(authorizeUrl(ctx.a.url, partner)))).status, 200, 'asked again');
});

t('a withdrawal at one instance refuses at the other, at once, a token of a login without refresh tokens', async () => {
  const { page, cookie } = await consentPage(ctx.a, WIDGET, 'widget');
  const code = redirectedTo(await decide(ctx.a.url, page, 'allow', cookie)).searchParams.get('code') ?? '';
  const redeemed = await postToken(
    ctx.a.url,
    { grant_type: 'authorization_code', code, redirect_uri: WIDGET.redirect, code_verifier: verifier },
    { Authorization: basic(WIDGET.id, WIDGET.secret) },
  );
  assert.is(redeemed.status, 200);
  const token = ((await redeemed.json()) as TokenResponse).access_token;
  const introspect = async (): Promise<boolean> => {
    const res = await fetch(`${ctx.a.url}/oauth/introspect`, {
      method: 'POST',
      headers: { Authorization: basic(WIDGET.id, WIDGET.secret), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    return ((await res.json()) as { active: boolean }).active;
  };
  assert.is(await listAllStatus(ctx.a, token), 200);
  assert.ok(await introspect(), 'active, and cached at A');
  await withdraw(ctx.b, WIDGET.id);
  assert.is(await listAllStatus(ctx.a, token), 401);
  assert.is(await introspect(), false);
});

t('two tabs, one at each instance, in one browser: both forms sign in', async () => {
  const first = await openForm(authorizeUrl(ctx.a.url, request('tab-1')));
  const second = await openForm(authorizeUrl(ctx.b.url, request('tab-2')), { Cookie: first.cookie ?? '' });
  assert.is(second.cookie, first.cookie);
  assert.is((await submit(ctx.b.url, first, USERS.john, () => {}, first.cookie)).status, 303);
  assert.is((await submit(ctx.a.url, second, USERS.john, () => {}, first.cookie)).status, 303);
});

t('a cookie and token made without the key are refused by both', async () => {
  const form = await openForm(authorizeUrl(ctx.a.url, request('forged')));
  const value = 'A'.repeat(43);
  const issuedAt = Math.floor(Date.now() / 1000);
  const params = [...form.fields].filter(([name]) => name !== 'csrf_token').sort(([x], [y]) => (x < y ? -1 : 1));
  const forged = `${issuedAt}.${hash('sha256', JSON.stringify([value, issuedAt, params]), 'base64url')}`;
  for (const server of [ctx.a, ctx.b]) {
    const res = await submit(
      server.url,
      form,
      USERS.john,
      (body) => body.set('csrf_token', forged),
      `troupe_authorize=${value}`,
    );
    assert.is(res.status, 400);
  }
});

t.run();
