/** id_tokens: `at_hash` as OpenID Connect Core computes it, and what the signer puts in the header and claims. */
import { createHash } from 'node:crypto';
import { base64url, decodeProtectedHeader, jwtVerify } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { atHash, createIdTokenSigner, readHint } from '../../src/security/id-token.ts';
import { generatePrivateKey, usableKey } from '../../src/security/key-material.ts';

const t = suite('security: id_tokens');

t("at_hash › Core's own example (Appendix A.3, RS256), and half of SHA-384 and SHA-512 for their algorithms", () => {
  assert.is(atHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'RS256'), '77QmUPtjPfzWtF2AnpK9RQ');
  const token = 'an-access-token';
  for (const [alg, hash, bytes] of [
    ['ES384', 'sha384', 24],
    ['RS512', 'sha512', 32],
  ] as const) {
    const expected = createHash(hash).update(token).digest().subarray(0, bytes).toString('base64url');
    assert.is(atHash(token, alg), expected, alg);
  }
});

t(
  'the signer › typ JWT and the key’s kid; iss, sub, aud, iat, exp, auth_time, at_hash, and the nonce only when sent',
  async () => {
    const key = await usableKey(generatePrivateKey('ES256'), 'ES256');
    const sign = createIdTokenSigner(async () => key, { issuer: 'http://issuer.test', validity: 600 });
    const at = Date.UTC(2030, 0, 1);
    const request = {
      subject: 'account:7',
      clientId: 'web-app',
      authTime: at / 1000 - 30,
      accessToken: 'an-access-token',
    };
    const withNonce = await sign({ ...request, nonce: 'n-1' }, at);
    assert.equal(decodeProtectedHeader(withNonce), { alg: 'ES256', typ: 'JWT', kid: key.kid });
    const { payload } = await jwtVerify(withNonce, key.verifyKey, { currentDate: new Date(at), typ: 'JWT' });
    assert.equal(payload, {
      iss: 'http://issuer.test',
      sub: 'account:7',
      aud: 'web-app',
      iat: at / 1000,
      exp: at / 1000 + 600,
      auth_time: at / 1000 - 30,
      nonce: 'n-1',
      at_hash: atHash('an-access-token', 'ES256'),
    });
    const { payload: without } = await jwtVerify(await sign(request, at), key.verifyKey, { currentDate: new Date(at) });
    assert.not.ok('nonce' in without);
  },
);

t(
  'readHint › an id_token of ours, expired too: its subject and audience; alg none, another signer or issuer: none',
  async () => {
    const key = await usableKey(generatePrivateKey('RS256'), 'RS256');
    const other = await usableKey(generatePrivateKey('RS256'), 'RS256');
    const issuer = 'http://issuer.test';
    const ring = { verifying: async (kid: string) => (kid === key.kid ? key : undefined) };
    const request = { subject: 'account:7', clientId: 'web-app', authTime: 1, accessToken: 'at' };
    const long = Date.UTC(2001, 0, 1);
    const expired = await createIdTokenSigner(async () => key, { issuer, validity: 60 })(request, long);
    assert.equal(await readHint(expired, ring, issuer), { subject: 'account:7', audience: ['web-app'] });
    const [, payload] = expired.split('.');
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT', kid: key.kid }))}.${payload}.`;
    // Signed by another key under our kid, and under its own kid.
    const sameKid = await createIdTokenSigner(async () => ({ ...other, kid: key.kid }), { issuer, validity: 60 })(
      request,
    );
    const ownKid = await createIdTokenSigner(async () => other, { issuer, validity: 60 })(request);
    const elsewhere = await createIdTokenSigner(async () => key, { issuer: 'http://other.test', validity: 60 })(
      request,
    );
    for (const hint of [none, sameKid, ownKid, elsewhere, 'not-a-token', `${expired}x`])
      assert.is(await readHint(hint, ring, issuer), undefined);
  },
);

t.run();
