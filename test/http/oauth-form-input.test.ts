// The OAuth endpoints' form bodies are validated from their declared schema before the handler,
// with the OAuth errors (RFC 6749 §5.2) the endpoints have always answered.
import * as assert from 'uvu/assert';
import { suite } from 'uvu';
import { z } from 'zod';
import { isOAuthForm, oauthForm, readOAuthForm } from '../../http/form-validation.ts';
import { oauthRevokeIntrospectRoutes, type TokenInfoRouteDeps } from '../../http/oauth/revoke-introspect.ts';
import { oauthGrantRoutes } from '../../http/oauth/token.ts';
import { errorReplies } from '../../http/openapi/error-replies.ts';
import { OAuthError } from '../../http/problems.ts';
import { PUBLIC } from '../../http/guards.ts';
import { route } from '../../http/route-table.ts';
import { isDocumented } from '../../http/validation.ts';
import { serverSuite } from '../helpers/server.ts';
import { basic, login, postToken, USERS } from '../helpers/tokens.ts';

const unit = suite('an OAuth form declaration');

const declared = oauthForm(
  z.object({ kind: z.enum(['a', 'b']), name: z.string().min(1), note: z.string().min(2).optional() }),
  {
    kind: {
      error: 'unsupported_kind',
      description: (v) => `Unknown kind: ${v}`,
      words: 'a kind the server does not know',
    },
  },
);

/** The OAuth error `readOAuthForm` throws for the form, as `error: description`. */
function refusal(form: string): string {
  try {
    readOAuthForm(declared, new URLSearchParams(form));
  } catch (error) {
    assert.instance(error, OAuthError);
    return error instanceof OAuthError ? `${error.status} ${error.error}: ${error.description}` : '';
  }
  assert.unreachable(`${form} was taken`);
  return '';
}

unit('the parsed form, every parameter the schema does not name ignored, repeated or not', () => {
  const form = 'kind=a&name=n&other=1&other=2&__proto__=x&constructor=y';
  assert.equal(readOAuthForm(declared, new URLSearchParams(form)), { kind: 'a', name: 'n' });
});

unit('a repeated parameter, then a missing or empty required one, then the field’s own refusal', () => {
  assert.is(refusal('kind=a&kind=a&name=n'), '400 invalid_request: Parameter kind is repeated');
  assert.is(refusal('kind=c&name=n&name=m'), '400 unsupported_kind: Unknown kind: c', 'in the order of the schema');
  assert.is(refusal('name=n'), '400 invalid_request: Missing parameter: kind');
  assert.is(refusal('kind=&name=n'), '400 invalid_request: Missing parameter: kind');
  assert.is(refusal('kind=a&name='), '400 invalid_request: Missing parameter: name');
  assert.is(refusal('kind=a'), '400 invalid_request: Missing parameter: name');
  // Empty, an optional parameter is still sent: refused by the schema, without a refusal of its own.
  assert.is(refusal('kind=a&name=n&note='), '400 invalid_request: Invalid parameter: note');
});

unit('the token, revocation and introspection routes take their form from the declaration', () => {
  const deps = {} as TokenInfoRouteDeps;
  for (const r of [...oauthGrantRoutes(deps), ...oauthRevokeIntrospectRoutes(deps)]) {
    const where = `${r.method} ${r.path}`;
    assert.ok(r.doc.body !== undefined && !isDocumented(r.doc.body), `${where}: its form schema is the check`);
    assert.ok(isOAuthForm(r.doc.body), where);
    assert.is(r.run.at(-1)?.name, 'validateInput', `${where}: the form is read before the handler`);
  }
});

unit('the description names each refusal of the token form once, with the route’s own errors', () => {
  const [token] = oauthGrantRoutes({} as TokenInfoRouteDeps);
  assert.ok(token);
  const words = errorReplies(token, token.doc)[400]?.description ?? '';
  for (const code of ['unsupported_grant_type', 'invalid_scope'])
    assert.is(words.split(`\`${code}\``).length - 1, 1, `${code} in: ${words}`);
});

unit('a route that validates a form no one parses does not start', () => {
  const spec = { method: 'POST', path: '/f', access: PUBLIC, tag: 'secured', summary: 'f', replies: {} } as const;
  assert.throws(
    () => route({ ...spec, body: declared }, async () => {}),
    /POST \/f validates a form body it does not parse/,
  );
});

unit.run();

const http = serverSuite('the OAuth forms over HTTP');

/** The status and OAuth error of an answer, as `status error: description`. */
async function answer(res: Response): Promise<string> {
  const body = (await res.json()) as { error?: string; error_description?: string };
  return `${res.status} ${body.error}: ${body.error_description}`;
}

const raw = (url: string, path: string, form: string) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
  });

http('POST /oauth/token › the same OAuth errors as the handler gave', async ({ server }) => {
  const token = (form: string) => raw(server.url, '/oauth/token', form);
  const { username, password } = USERS.john;
  const cases: [string, string][] = [
    ['username=a', '400 invalid_request: Missing parameter: grant_type'],
    ['grant_type=', '400 invalid_request: Missing parameter: grant_type'],
    ['grant_type=password&grant_type=password', '400 invalid_request: Parameter grant_type is repeated'],
    [`grant_type=${'x'.repeat(80)}`, `400 unsupported_grant_type: Unsupported grant type: ${'x'.repeat(64)}`],
    ['grant_type=implicit', '400 unsupported_grant_type: Unsupported grant type: implicit'],
    ['grant_type=password&scope=read&scope=write', '400 invalid_request: Parameter scope is repeated'],
    ['grant_type=password&scope=%20', '400 invalid_scope: Malformed scope'],
    ['grant_type=password&scope=re"ad&username=a', '400 invalid_scope: Malformed scope'],
    [`grant_type=password&password=${password}`, '400 invalid_request: Missing parameter: username'],
    [`grant_type=password&username=&password=${password}`, '400 invalid_request: Missing parameter: username'],
    [`grant_type=password&username=${username}`, '400 invalid_request: Missing parameter: password'],
    [`grant_type=password&username=${username}&username=admin`, '400 invalid_request: Parameter username is repeated'],
    ['grant_type=refresh-token', '400 invalid_request: Missing parameter: refresh_token'],
    ['grant_type=authorization_code&code=c&redirect_uri=', '400 invalid_request: Missing parameter: redirect_uri'],
    [
      'grant_type=authorization_code&code=c&redirect_uri=r&code_verifier=',
      '400 invalid_request: Invalid parameter: code_verifier',
    ],
    // code_verifier may be left out (a code issued without a challenge): the form goes on to the grant.
    [
      'grant_type=authorization_code&code=c&redirect_uri=r',
      '400 invalid_grant: Invalid authorization code or code_verifier',
    ],
  ];
  for (const [form, expected] of cases) assert.is(await answer(await token(form)), expected, form);
});

http('POST /oauth/token › parameters the form does not name are ignored; the scope is parsed', async ({ server }) => {
  const extra = { grant_type: 'password', ...USERS.john, scope: 'read  read', unknown: 'x' };
  const res = await postToken(server.url, extra);
  assert.is(res.status, 200);
  assert.is(((await res.json()) as { scope: string }).scope, 'read');
  const { username, password } = USERS.john;
  const twice = await raw(
    server.url,
    '/oauth/token',
    `grant_type=password&username=${username}&password=${password}&x=1&x=2`,
  );
  assert.is(twice.status, 200, 'a repeated parameter the form does not name');
});

http(
  'POST /oauth/revoke, /oauth/introspect, /oauth/check_token › the same OAuth errors; every hint taken',
  async ({ server }) => {
    const { access_token: token } = await login(server.url);
    for (const path of ['/oauth/introspect', '/oauth/check_token', '/oauth/revoke']) {
      const send = (form: string) => raw(server.url, path, form);
      assert.is(
        await answer(await send('token_type_hint=access_token')),
        '400 invalid_request: Missing parameter: token',
        path,
      );
      assert.is(await answer(await send('token=')), '400 invalid_request: Missing parameter: token', path);
      assert.is(await answer(await send('token=a&token=b')), '400 invalid_request: Parameter token is repeated', path);
      const hints = 'token_type_hint=a&token_type_hint=b&token=a';
      assert.is(await answer(await send(hints)), '400 invalid_request: Parameter token_type_hint is repeated', path);
      // RFC 7009 §2.1, RFC 7662 §2.1: a hint the server does not know is no error.
      const res = await send(`token=${token}&token_type_hint=id_token`);
      assert.is(res.status, 200, path);
    }
  },
);

http.run();
