/** OpenID Connect Discovery 1.0: the OpenID Provider metadata, and its agreement with RFC 8414's. */
import * as assert from 'uvu/assert';
import { routesOf } from '../../http/app.ts';
import { CLIENTS, clientsFile, OPENID_APP_CLIENT } from '../helpers/clients.ts';
import { serverSuite } from '../helpers/server.ts';

const t = serverSuite('GET /.well-known/openid-configuration', {
  'security.clients-file': clientsFile([...CLIENTS, OPENID_APP_CLIENT]),
});

type Metadata = Record<string, unknown>;
const read = async (url: string, path: string): Promise<Metadata> => {
  const res = await fetch(`${url}${path}`);
  assert.is(res.status, 200, path);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, path);
  return (await res.json()) as Metadata;
};

/** What only an OpenID Provider's metadata says, beside every field of RFC 8414's. */
const OPENID_ONLY = [
  'userinfo_endpoint',
  'end_session_endpoint',
  'subject_types_supported',
  'id_token_signing_alg_values_supported',
  'claims_supported',
  'request_parameter_supported',
  'request_uri_parameter_supported',
  'claims_parameter_supported',
];

t('GET /.well-known/openid-configuration › every field Discovery 1.0 requires, public', async ({ server }) => {
  const meta = await read(server.url, '/.well-known/openid-configuration');
  const issuer = server.config.security.jwt.issuer;
  assert.is(meta['issuer'], issuer);
  assert.is(meta['authorization_endpoint'], `${issuer}/oauth/authorize`);
  assert.is(meta['token_endpoint'], `${issuer}/oauth/token`);
  assert.is(meta['userinfo_endpoint'], `${issuer}/userinfo`);
  assert.is(meta['jwks_uri'], `${issuer}/.well-known/jwks.json`);
  assert.equal(meta['response_types_supported'], ['code']);
  assert.equal(meta['subject_types_supported'], ['public']);
  assert.equal(meta['id_token_signing_alg_values_supported'], ['RS256']);
  assert.equal(meta['scopes_supported'], ['openid', 'profile', 'email', 'read', 'write']);
  assert.equal(meta['claims_supported'], [
    'sub',
    'iss',
    'aud',
    'exp',
    'iat',
    'auth_time',
    'nonce',
    'at_hash',
    'name',
    'given_name',
    'family_name',
    'preferred_username',
    'updated_at',
    'email',
    'email_verified',
  ]);
  assert.is(meta['request_uri_parameter_supported'], false, 'Discovery’s default (true) would claim it');
  assert.is(meta['end_session_endpoint'], `${issuer}/oauth/logout`, 'RP-initiated logout');
});

t('GET /.well-known/openid-configuration › every field of the RFC 8414 metadata, the same', async ({ server }) => {
  const oauth = await read(server.url, '/.well-known/oauth-authorization-server');
  const openid = await read(server.url, '/.well-known/openid-configuration');
  for (const [key, value] of Object.entries(oauth)) assert.equal(openid[key], value, key);
  assert.equal(
    Object.keys(openid).filter((k) => !(k in oauth)),
    OPENID_ONLY,
  );
  for (const key of OPENID_ONLY) assert.is(oauth[key], undefined, `${key}: said by the OpenID document alone`);
});

t('GET /.well-known/openid-configuration › each endpoint it names is served here', async ({ server }) => {
  const meta = await read(server.url, '/.well-known/openid-configuration');
  const served = new Set(routesOf(server.troupe.app).map((r) => `${r.method} ${r.path}`));
  const named = {
    authorization_endpoint: 'GET',
    token_endpoint: 'POST',
    userinfo_endpoint: 'GET',
    end_session_endpoint: 'GET',
    jwks_uri: 'GET',
    revocation_endpoint: 'POST',
    introspection_endpoint: 'POST',
  } as const;
  for (const [key, method] of Object.entries(named)) {
    const url = new URL(String(meta[key]));
    assert.is(url.origin, new URL(server.config.security.jwt.issuer).origin, key);
    assert.ok(served.has(`${method} ${url.pathname}`), `${key}: ${method} ${url.pathname}`);
  }
  const userinfo = await fetch(String(meta['userinfo_endpoint']).replace(/^https?:\/\/[^/]+/, server.url));
  assert.is(userinfo.status, 401);
  assert.match(userinfo.headers.get('www-authenticate') ?? '', /^Bearer /);
});

t.run();
