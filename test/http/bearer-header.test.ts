/**
 * The Authorization header as the resource server reads it (RFC 6750 §2.1): `Bearer`, in any
 * case, then spaces and a token68; every other form is refused with the contract's answer.
 */
import type { Context } from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearerAuthenticator, type BearerVerifier } from '../../http/middleware/bearer-auth.ts';
import { OAuthError } from '../../http/problems.ts';
import type { Principal } from '../../src/security/jwt.ts';

const t = suite('http: the bearer header');

const principal: Principal = {
  username: 'u',
  subject: 'account:1',
  authorities: [],
  scope: ['read'],
  clientId: 'c',
  jti: 'j',
  loginId: undefined,
  exp: 2e9,
  iat: 1e9,
  kid: 'k',
};

/** A request as the authenticator reads it: its raw headers and its query string. */
function request(headers: readonly (readonly [string, string])[], querystring = ''): Context {
  const lower: Record<string, string> = {};
  for (const [name, value] of headers) lower[name.toLowerCase()] = value;
  return {
    req: { rawHeaders: headers.flat(), headers: lower },
    querystring,
    state: {},
  } as unknown as Context;
}

/** What the authenticator made of the request: the token it verified, or the refusal. */
async function outcome(
  headers: readonly (readonly [string, string])[],
  options: { querystring?: string; known?: (token: string) => boolean } = {},
): Promise<string> {
  const seen: string[] = [];
  const verify: BearerVerifier = Object.assign(
    async (token: string) => {
      seen.push(token);
      return principal;
    },
    options.known
      ? { lookup: (token: string) => (options.known?.(token) ? (seen.push(`kept ${token}`), principal) : undefined) }
      : {},
  );
  const authenticator = bearerAuthenticator({ enabled: true, realm: 'test', verify });
  try {
    const ctx = request(headers, options.querystring);
    if (!authenticator.authenticateNow(ctx)) await authenticator.authenticate(ctx);
    return `verified ${seen.join()}`;
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return `${error.status} ${error.error}: ${error.description}`;
  }
}

const NO_AUTH = '401 unauthorized: Full authentication is required to access this resource';
const MALFORMED = '401 invalid_token: Access token is malformed';

t('Bearer in any case, one or more spaces, the token trimmed', async () => {
  assert.is(await outcome([['Authorization', 'Bearer abc.def-_~+/=']]), 'verified abc.def-_~+/=');
  assert.is(await outcome([['authorization', 'bearer abc']]), 'verified abc');
  assert.is(await outcome([['AUTHORIZATION', 'BEARER abc']]), 'verified abc');
  assert.is(await outcome([['Authorization', 'Bearer    abc  ']]), 'verified abc');
});

t('no Authorization, another scheme, or Bearer run into the token: 401 with the bare challenge', async () => {
  assert.is(await outcome([]), NO_AUTH);
  assert.is(await outcome([['Authorization', 'Basic dTpw']]), NO_AUTH);
  assert.is(await outcome([['Authorization', 'Bearerabc']]), NO_AUTH);
  assert.is(await outcome([['Authorization', 'Bearer\tabc']]), NO_AUTH);
  assert.is(await outcome([['Authorization', 'Bear']]), NO_AUTH);
  assert.is(await outcome([['Authorization', '']]), NO_AUTH);
});

t('Bearer without a token, or a token outside token68: invalid_token, malformed', async () => {
  assert.is(await outcome([['Authorization', 'Bearer']]), MALFORMED);
  assert.is(await outcome([['Authorization', 'Bearer   ']]), MALFORMED);
  assert.is(await outcome([['Authorization', 'Bearer a b']]), MALFORMED);
  assert.is(await outcome([['Authorization', 'Bearer a=b']]), MALFORMED);
  assert.is(await outcome([['Authorization', 'Bearer "abc"']]), MALFORMED);
});

t('two Authorization headers, or a token in the query string: 400 invalid_request', async () => {
  assert.match(
    await outcome([
      ['Authorization', 'Bearer abc'],
      ['authorization', 'Bearer abc'],
    ]),
    /^400 invalid_request: Only one Authorization header/,
  );
  assert.match(
    await outcome([['Authorization', 'Bearer abc']], { querystring: 'x=1&access_token=abc' }),
    /^400 invalid_request: Access tokens are not accepted in the query string/,
  );
  assert.is(await outcome([['Authorization', 'Bearer abc']], { querystring: 'x=1' }), 'verified abc');
});

t(
  'a token the cache keeps (verified before, so well-formed then) is not scanned again, nor verified anew',
  async () => {
    assert.is(await outcome([['Authorization', 'Bearer a b']], { known: () => false }), MALFORMED);
    assert.is(await outcome([['Authorization', 'Bearer abc']], { known: () => false }), 'verified abc');
    assert.is(
      await outcome([['Authorization', 'Bearer a b']], { known: (token) => token === 'a b' }),
      'verified kept a b',
    );
  },
);

t.run();
