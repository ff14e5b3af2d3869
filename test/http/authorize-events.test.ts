/** Security events of the sign-in page: the same records as the password grant's. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authorizeUrl, decide, openForm, pageOf, pkce, submit } from '../helpers/authorize.ts';
import { CLIENTS, clientsFile, PARTNER, WEB } from '../helpers/clients.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, bearer, login, postToken, USERS } from '../helpers/tokens.ts';
import { waitFor } from '../helpers/wait.ts';

type Line = Record<string, unknown>;
const s = suite('security events of POST /oauth/authorize', {} as { server: TestServer; lines: string[] });

s.before(async (c) => {
  c.lines = [];
  const sink = { write: (line: string) => c.lines.push(line) } as unknown as NodeJS.WritableStream;
  c.server = await startTestServer(
    {
      'logging.level': 'info',
      'security.clients-file': clientsFile(CLIENTS),
      'security.login-throttle.max-failures-per-user': '2',
    },
    undefined,
    sink,
  );
});
s.after(async (c) => c.server?.close());

/** The one record of `event` for the request answered with `res`. */
async function eventOf(c: { lines: string[] }, event: string, res: Response): Promise<Line> {
  const requestId = res.headers.get('x-request-id');
  const find = () =>
    c.lines.map((l) => JSON.parse(l) as Line).filter((l) => l['event'] === event && l['request_id'] === requestId);
  await waitFor(() => find().length > 0, `${event} logged`, 3000);
  assert.is(find().length, 1, `one ${event} record`);
  return find()[0] as Line;
}

const signIn = async (c: { server: TestServer }, user: { username: string; password: string }) => {
  const form = await openForm(
    authorizeUrl(c.server.url, {
      response_type: 'code',
      client_id: WEB.id,
      redirect_uri: WEB.redirect,
      state: 's',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    }),
  );
  return submit(c.server.url, form, user);
};

s('a sign-in → login.succeeded; a wrong password → login.failed; past the throttle → login.throttled', async (c) => {
  const ok = await signIn(c, USERS.john);
  assert.is(ok.status, 303);
  const succeeded = await eventOf(c, 'login.succeeded', ok);
  assert.is(succeeded['username'], USERS.john.username);
  assert.is(succeeded['client_id'], WEB.id);
  assert.is(succeeded['client_address'], '127.0.0.1');
  const wrong = { username: USERS.admin.username, password: 'not-the-password' };
  const failed = await signIn(c, wrong);
  assert.is(failed.status, 400);
  assert.is((await eventOf(c, 'login.failed', failed))['username'], USERS.admin.username);
  await signIn(c, wrong);
  const throttled = await signIn(c, wrong);
  assert.is(throttled.status, 429);
  assert.is((await eventOf(c, 'login.throttled', throttled))['client_id'], WEB.id);
  for (const line of c.lines) assert.not.ok(line.includes(USERS.john.password), 'no password logged');
});

s('the refresh-token spelling of the refresh grant is reported as token.refreshed too', async (c) => {
  const login = await postToken(c.server.url, { grant_type: 'password', ...USERS.john }, { Authorization: basic() });
  const { refresh_token } = (await login.json()) as { refresh_token: string };
  const res = await postToken(c.server.url, { grant_type: 'refresh-token', refresh_token }, { Authorization: basic() });
  assert.is(res.status, 200);
  assert.is((await eventOf(c, 'token.refreshed', res))['event'], 'token.refreshed');
});

s('the consent page: Deny → consent.denied, Allow → consent.granted, a withdrawal → consent.withdrawn', async (c) => {
  const consentPage = async () => {
    const form = await openForm(
      authorizeUrl(c.server.url, {
        response_type: 'code',
        client_id: PARTNER.id,
        redirect_uri: PARTNER.redirect,
        scope: 'read',
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    return { page: await pageOf(await submit(c.server.url, form, USERS.john)), cookie: form.cookie };
  };
  const first = await consentPage();
  const denied = await decide(c.server.url, first.page, 'deny', first.cookie);
  assert.is(denied.status, 303);
  const deniedEvent = await eventOf(c, 'consent.denied', denied);
  assert.is(deniedEvent['username'], USERS.john.username);
  assert.is(deniedEvent['client_id'], PARTNER.id);
  const second = await consentPage();
  const allowed = await decide(c.server.url, second.page, 'allow', second.cookie);
  assert.is(allowed.status, 303);
  const granted = await eventOf(c, 'consent.granted', allowed);
  assert.is(granted['username'], USERS.john.username);
  assert.is(granted['client_id'], PARTNER.id);
  assert.is(granted['scope'], 'read');
  const token = (await login(c.server.url, USERS.john)).access_token;
  const withdrawn = await fetch(`${c.server.url}/app/me/consents/${PARTNER.id}`, {
    method: 'DELETE',
    headers: bearer(token),
  });
  assert.is(withdrawn.status, 204);
  assert.is((await eventOf(c, 'consent.withdrawn', withdrawn))['client_id'], PARTNER.id);
  for (const line of c.lines)
    assert.not.ok(line.includes(second.page.fields.get('consent_ticket') ?? '-'), 'no ticket logged');
});

s.run();
