/**
 * OpenID Connect over HTTP: an authorization request's `nonce` travels through the sign-in form and
 * the consent page, bound to the browser and the request as every other parameter is.
 */
import * as assert from 'uvu/assert';
import { authorizeUrl, decide, openForm, pageOf, pkce, redirectedTo, submit } from '../helpers/authorize.ts';
import { CLIENTS, clientsFile, PARTNER, WEB } from '../helpers/clients.ts';
import { serverSuite } from '../helpers/server.ts';

/** The test clients, the web client and the partner asking `openid` besides their scopes. */
const OPENID_CLIENTS = CLIENTS.map((c) =>
  c.client_id === WEB.id || c.client_id === PARTNER.id ? { ...c, scope: `openid ${c.scope}` } : c,
);

const t = serverSuite('OpenID Connect: the nonce through the forms', {
  'security.clients-file': clientsFile(OPENID_CLIENTS),
});

const { challenge } = pkce();
const NONCE = 'n-0S6_WzA2Mj';
const request = (client: { id: string; redirect: string }, over: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: client.id,
  redirect_uri: client.redirect,
  scope: 'openid read',
  state: 'state-o',
  nonce: NONCE,
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...over,
});

t('GET › the nonce is a hidden field of the sign-in form, as sent', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, request(WEB)));
  assert.is(form.status, 200);
  assert.is(form.fields.get('nonce'), NONCE);
  const without = await openForm(authorizeUrl(c.server.url, request(WEB, { nonce: '' })));
  assert.is(without.fields.get('nonce'), '', 'an empty nonce is carried as sent, and means none');
});

t('POST › a nonce changed on the sign-in form → 400 expired page, no code', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, request(WEB)));
  const res = await submit(c.server.url, form, undefined, (body) => body.set('nonce', 'chosen-by-another'));
  assert.is(res.status, 400);
  assert.is(res.headers.get('location'), null);
  assert.match(await res.text(), /expired/);
});

t('GET › a repeated nonce → back to the client with invalid_request', async (c) => {
  const url = new URL(authorizeUrl(c.server.url, request(WEB)));
  url.searchParams.append('nonce', 'another');
  const form = await openForm(url.href);
  assert.is(form.status, 302);
  const back = redirectedTo(form as unknown as Response);
  assert.is(back.searchParams.get('error'), 'invalid_request');
  assert.is(back.searchParams.get('error_description'), 'Parameter nonce is repeated');
  assert.is(back.searchParams.get('state'), 'state-o');
});

t('POST /oauth/authorize/consent › the consent page carries the nonce; changed, it is refused', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, request(PARTNER)));
  const signedIn = await submit(c.server.url, form);
  assert.is(signedIn.status, 200, 'the consent page');
  const page = await pageOf(signedIn);
  assert.is(page.fields.get('nonce'), NONCE);
  const cookie = page.cookie ?? form.cookie;
  const changed = await decide(c.server.url, page, 'allow', cookie, (body) => body.set('nonce', 'another'));
  assert.is(changed.status, 400);
  assert.is(changed.headers.get('location'), null);
  const allowed = await decide(c.server.url, page, 'allow', cookie);
  assert.is(allowed.status, 303);
  assert.ok(redirectedTo(allowed).searchParams.get('code'));
});

t.run();
