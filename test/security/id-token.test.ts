/** id_tokens: `at_hash` as OpenID Connect Core computes it, and what the signer puts in the header and claims. */
import { createHash } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { atHash, createIdTokenSigner } from '../../src/security/id-token.ts';
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

t.run();
