/**
 * The sign-in session of /oauth/authorize (OpenID Connect Core §3.1.2.1): a sign-in sets a cookie
 * with which a second authorization, of another application too, needs no password; `prompt`,
 * `max_age` and `id_token_hint` decide when the password is asked again, and an account change
 * that ends its logins ends its sessions.
 */
import bcrypt from 'bcryptjs';
import { decodeJwt } from 'jose';
import * as assert from 'uvu/assert';
import { authorizeUrl, decide, openForm, pkce, redirectedTo, submit, type ServedForm } from '../helpers/authorize.ts';
import { clientsFile, SPA } from '../helpers/clients.ts';
import { serverSuite } from '../helpers/server.ts';
import { newUserAccount } from '../helpers/accounts.ts';
import { bearer, login, postToken, USERS } from '../helpers/tokens.ts';

/** A first-party OpenID application: no consent asked. */
const APP = { id: 'session-app', secret: 'session-app-secret', redirect: 'http://127.0.0.1:9/session/callback' };
/** A third-party OpenID application: asks consent. */
const PARTNER = { id: 'session-partner', secret: 'session-partner-secret', redirect: 'http://127.0.0.1:9/p/callback' };

const client = (c: typeof APP, consent: 'implicit' | 'explicit') => ({
  client_id: c.id,
  client_secret: bcrypt.hashSync(c.secret, 4),
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [c.redirect],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile read',
  consent,
});

const t = serverSuite('/oauth/authorize › the sign-in session', {
  'security.clients-file': clientsFile([
    client(APP, 'implicit'),
    client(PARTNER, 'explicit'),
    {
      client_id: SPA.id,
      token_endpoint_auth_method: 'none',
      redirect_uris: [SPA.redirect],
      grant_types: ['authorization_code'],
      scope: 'read',
      consent: 'implicit',
    },
  ]),
});

const { challenge, verifier } = pkce();

const request = (c: { id: string; redirect: string }, more: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: c.id,
  redirect_uri: c.redirect,
  scope: 'openid read',
  state: 'st-1',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...more,
});

/** Signs in at APP with the password; the code's redirect and the session cookie. */
async function signIn(
  base: string,
  user: { username: string; password: string } = USERS.john,
  more: Record<string, string> = {},
  cookie?: string,
) {
  const form = await openForm(authorizeUrl(base, request(APP, more)), cookie ? { Cookie: cookie } : {});
  assert.is(form.status, 200, 'the sign-in form');
  const res = await submit(base, form, user, () => {}, [form.cookie, cookie].filter(Boolean).join('; '));
  assert.is(res.status, 303);
  const setCookies = res.headers.getSetCookie();
  const session = setCookies.find((c) => c.startsWith('troupe_session='));
  assert.ok(session, 'a session cookie');
  return { back: redirectedTo(res), session: session.split(';')[0] ?? '', setCookie: session };
}

/** A new USER account of this suite, which has allowed no client anything. */
const newAccount = (base: string) => newUserAccount(base, 'session');

/** GET of an authorization with the browser's cookie. */
const authorize = (base: string, c: { id: string; redirect: string }, cookie: string, more = {}): Promise<ServedForm> =>
  openForm(authorizeUrl(base, request(c, more)), cookie === '' ? {} : { Cookie: cookie });

async function idTokenOf(base: string, code: string) {
  const res = await postToken(
    base,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: APP.redirect,
      code_verifier: verifier,
      client_id: APP.id,
      client_secret: APP.secret,
    },
    {},
  );
  assert.is(res.status, 200);
  const body = (await res.json()) as { id_token: string };
  return decodeJwt(body.id_token);
}

t('a sign-in sets the session cookie: HttpOnly, SameSite=Lax, Path=/, until the session ends', async (c) => {
  const { setCookie } = await signIn(c.server.url);
  assert.match(setCookie, /^troupe_session=[A-Za-z0-9_-]{43}; /);
  assert.match(setCookie, /; path=\//i);
  assert.match(setCookie, /; httponly/i);
  assert.match(setCookie, /; samesite=lax/i);
  const expires = Date.parse(/expires=([^;]+)/i.exec(setCookie)?.[1] ?? '');
  assert.ok(Math.abs(expires - (Date.now() + 28_800_000)) < 60_000, 'the default max age, 8 hours');
});

t('signed in once: another application gets its code at once, with the auth_time of the sign-in', async (c) => {
  const { back, session } = await signIn(c.server.url);
  const first = await idTokenOf(c.server.url, back.searchParams.get('code') ?? '');
  const spa = await authorize(c.server.url, SPA, session, { scope: 'read' });
  assert.is(spa.status, 302, 'no page');
  const spaBack = redirectedTo(spa as unknown as Response);
  assert.is(spaBack.origin + spaBack.pathname, SPA.redirect);
  assert.ok(spaBack.searchParams.get('code'));
  assert.is(spaBack.searchParams.get('state'), 'st-1');
  const again = await authorize(c.server.url, APP, session);
  const second = await idTokenOf(
    c.server.url,
    redirectedTo(again as unknown as Response).searchParams.get('code') ?? '',
  );
  assert.is(second.sub, first.sub);
  assert.is(second.auth_time, first.auth_time, 'the time of the password, not of this authorization');
});

t(
  'prompt=none: a code through the session; without one login_required; consent needed → consent_required',
  async (c) => {
    const { session } = await signIn(c.server.url);
    const silent = await authorize(c.server.url, APP, session, { prompt: 'none' });
    assert.ok(redirectedTo(silent as unknown as Response).searchParams.get('code'));
    for (const [cookie, client, error] of [
      ['', APP, 'login_required'],
      ['troupe_session=' + 'A'.repeat(43), APP, 'login_required'],
      [session, PARTNER, 'consent_required'],
    ] as const) {
      const res = await authorize(c.server.url, client, cookie, { prompt: 'none' });
      assert.is(res.status, 302, error);
      const back = redirectedTo(res as unknown as Response);
      assert.is(back.origin + back.pathname, client.redirect);
      assert.is(back.searchParams.get('error'), error);
      assert.is(back.searchParams.get('state'), 'st-1');
      assert.ok(back.searchParams.get('iss'), 'iss (RFC 9207)');
      assert.is(back.searchParams.get('code'), null);
    }
  },
);

t(
  'prompt=login and max_age=0 ask for the password; a later sign-in moves auth_time, a generous max_age does not',
  async (c) => {
    const { back, session } = await signIn(c.server.url);
    const first = await idTokenOf(c.server.url, back.searchParams.get('code') ?? '');
    for (const more of [{ prompt: 'login' }, { max_age: '0' }]) {
      const form = await authorize(c.server.url, APP, session, more);
      assert.is(form.status, 200, `the sign-in form for ${JSON.stringify(more)}`);
      assert.match(form.html, /name="password"/);
    }
    const generous = await authorize(c.server.url, APP, session, { max_age: '3600' });
    const kept = await idTokenOf(
      c.server.url,
      redirectedTo(generous as unknown as Response).searchParams.get('code') ?? '',
    );
    assert.is(kept.auth_time, first.auth_time);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // auth_time counts whole seconds
    const later = await signIn(c.server.url, USERS.john, { prompt: 'login' }, session);
    const moved = await idTokenOf(c.server.url, later.back.searchParams.get('code') ?? '');
    assert.ok((moved.auth_time as number) > (first.auth_time as number), 'a new password, a new auth_time');
    const replaced = await authorize(c.server.url, APP, session, { prompt: 'none' });
    assert.is(
      redirectedTo(replaced as unknown as Response).searchParams.get('error'),
      'login_required',
      'the old session ended',
    );
  },
);

t(
  "id_token_hint: the session's own account signs in at once; another's asks for the password; a forged one is refused",
  async (c) => {
    const john = await signIn(c.server.url);
    const johnsIdToken = await postToken(
      c.server.url,
      {
        grant_type: 'authorization_code',
        code: john.back.searchParams.get('code') ?? '',
        redirect_uri: APP.redirect,
        code_verifier: verifier,
        client_id: APP.id,
        client_secret: APP.secret,
      },
      {},
    ).then(async (r) => ((await r.json()) as { id_token: string }).id_token);
    const hinted = await authorize(c.server.url, APP, john.session, { prompt: 'none', id_token_hint: johnsIdToken });
    assert.ok(redirectedTo(hinted as unknown as Response).searchParams.get('code'));
    const admin = await signIn(c.server.url, USERS.admin);
    const other = await authorize(c.server.url, APP, admin.session, { prompt: 'none', id_token_hint: johnsIdToken });
    assert.is(redirectedTo(other as unknown as Response).searchParams.get('error'), 'login_required');
    const form = await authorize(c.server.url, APP, admin.session, { id_token_hint: johnsIdToken });
    assert.is(form.status, 200, 'the sign-in form');
    const [header, payload] = johnsIdToken.split('.');
    for (const forged of ['not-a-token', `${header}.${payload}.${'A'.repeat(342)}`]) {
      const res = await authorize(c.server.url, APP, john.session, { id_token_hint: forged });
      const back = redirectedTo(res as unknown as Response);
      assert.is(back.searchParams.get('error'), 'invalid_request');
      assert.is(back.searchParams.get('code'), null);
    }
  },
);

t('through the session, a client that asks consent: its page, for a browser without the form cookie too', async (c) => {
  const { session } = await signIn(c.server.url, await newAccount(c.server.url));
  // The session cookie alone: the sign-in form's cookie lasts 10 minutes, the session 8 hours.
  const page = await authorize(c.server.url, PARTNER, session);
  assert.is(page.status, 200, 'the consent page');
  assert.match(page.html, /action="\/oauth\/authorize\/consent"/);
  assert.ok(page.cookie, 'which sets the form cookie its ticket is bound to');
  const allowed = await decide(c.server.url, page, 'allow', `${page.cookie}; ${session}`);
  assert.is(allowed.status, 303);
  assert.ok(redirectedTo(allowed).searchParams.get('code'));
  assert.is((await authorize(c.server.url, PARTNER, session)).status, 302, 'allowed: no page the next time');
});

t('prompt=consent through the session: the consent page though allowed; a first-party code at once', async (c) => {
  const { session } = await signIn(c.server.url, await newAccount(c.server.url));
  const page = await authorize(c.server.url, PARTNER, session);
  assert.is((await decide(c.server.url, page, 'allow', `${page.cookie}; ${session}`)).status, 303);
  assert.is((await authorize(c.server.url, PARTNER, session)).status, 302, 'allowed: no page');
  const asked = await authorize(c.server.url, PARTNER, session, { prompt: 'consent' });
  assert.is(asked.status, 200, 'prompt=consent: the page again');
  assert.match(asked.html, /action="\/oauth\/authorize\/consent"/);
  const app = await authorize(c.server.url, APP, session, { prompt: 'consent' });
  assert.is(app.status, 302, 'a first-party client asks nothing');
  assert.ok(redirectedTo(app as unknown as Response).searchParams.get('code'));
});

t('prompt and max_age that cannot be honoured are refused back to the application', async (c) => {
  for (const more of [{ prompt: 'none login' }, { prompt: 'sometimes' }, { max_age: '-1' }, { max_age: 'soon' }]) {
    const res = await authorize(c.server.url, APP, '', more);
    assert.is(res.status, 302, JSON.stringify(more));
    assert.is(redirectedTo(res as unknown as Response).searchParams.get('error'), 'invalid_request');
  }
  for (const more of [{ prompt: 'consent' }, { prompt: 'select_account' }, { prompt: 'login consent' }]) {
    const form = await authorize(c.server.url, APP, '', more);
    assert.is(form.status, 200, `the sign-in form for ${JSON.stringify(more)}`);
  }
});

t('every login of the account ended: its session signs no one in, in every process', async (c) => {
  const { session } = await signIn(c.server.url, USERS.admin);
  const admin = (await login(c.server.url, USERS.admin)).access_token;
  const me = (await (await fetch(`${c.server.url}/app/admin/users?limit=100`, { headers: bearer(admin) })).json()) as {
    items: { id: number; username: string }[];
  };
  const id = me.items.find((a) => a.username === USERS.admin.username)?.id;
  const ended = await fetch(`${c.server.url}/app/admin/users/${id}/sessions`, {
    method: 'DELETE',
    headers: bearer(admin),
  });
  assert.is(ended.status, 204);
  const res = await authorize(c.server.url, APP, session, { prompt: 'none' });
  assert.is(redirectedTo(res as unknown as Response).searchParams.get('error'), 'login_required');
});

t(
  'an authorization request by POST is answered as by GET: the sign-in form, or a code through the session',
  async (c) => {
    const post = (cookie: string) =>
      fetch(`${c.server.url}/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie === '' ? {} : { Cookie: cookie }) },
        body: new URLSearchParams(request(APP)).toString(),
      });
    const fresh = await post('');
    assert.is(fresh.status, 200);
    assert.match(await fresh.text(), /name="password"/);
    const { session } = await signIn(c.server.url);
    const signedIn = await post(session);
    assert.is(signedIn.status, 303);
    assert.ok(redirectedTo(signedIn).searchParams.get('code'));
  },
);

t('an OpenID request names its redirect_uri: without it, the error page, never a redirect', async (c) => {
  const { redirect_uri: _left, ...rest } = request(APP);
  const res = await openForm(authorizeUrl(c.server.url, rest));
  assert.is(res.status, 400);
  assert.is(res.headers.get('location'), null);
  assert.match(res.html, /redirect_uri/);
  const plain = await openForm(authorizeUrl(c.server.url, { ...rest, scope: 'read' }));
  assert.is(plain.status, 200, 'without openid, the one registered URI stands in');
});

t.run();
