/** The UserInfo claims of each OpenID scope (src/security/claims.ts), from an account's profile. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CLAIMS_SUPPORTED, userInfoClaims, type ProfileSource } from '../../src/security/claims.ts';

const t = suite('security: the claims of the OpenID scopes');

const JANE: ProfileSource = {
  id: 7,
  username: 'jane',
  firstName: 'Jane',
  lastName: 'Doe',
  email: 'Jane.Doe@example.com',
  updatedAt: 1_700_000_123,
};

t('openid alone: sub, the account subject, and nothing else', () => {
  assert.equal(userInfoClaims(JANE, ['openid']), { sub: 'account:7' });
  assert.equal(userInfoClaims(JANE, ['openid', 'read', 'write']), { sub: 'account:7' }, 'other scopes release none');
});

t('profile: the names, the username and updated_at; email: the email, never verified', () => {
  assert.equal(userInfoClaims(JANE, ['openid', 'profile']), {
    sub: 'account:7',
    name: 'Jane Doe',
    given_name: 'Jane',
    family_name: 'Doe',
    preferred_username: 'jane',
    updated_at: 1_700_000_123,
  });
  assert.equal(userInfoClaims(JANE, ['email', 'openid']), {
    sub: 'account:7',
    email: 'Jane.Doe@example.com',
    email_verified: false,
  });
  assert.equal(Object.keys(userInfoClaims(JANE, ['email', 'profile', 'openid'])), [
    'sub',
    'name',
    'given_name',
    'family_name',
    'preferred_username',
    'updated_at',
    'email',
    'email_verified',
  ]);
});

t('empty claims are left out; name joins the parts there are with one space', () => {
  const bare: ProfileSource = { ...JANE, firstName: '', lastName: ' ', email: null, updatedAt: 0 };
  assert.equal(userInfoClaims(bare, ['openid', 'profile', 'email']), { sub: 'account:7', preferred_username: 'jane' });
  assert.is(userInfoClaims({ ...bare, lastName: 'Doe' }, ['openid', 'profile']).name, 'Doe');
  assert.is(userInfoClaims({ ...bare, firstName: ' Jane ' }, ['openid', 'profile']).name, 'Jane');
  assert.is(userInfoClaims({ ...JANE, firstName: 'Mary Jane' }, ['openid', 'profile']).name, 'Mary Jane Doe');
});

t('claims_supported names every claim a scope can release and the id_token protocol claims', () => {
  for (const claim of ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash'])
    assert.ok(CLAIMS_SUPPORTED.includes(claim), claim);
  const released = Object.keys(userInfoClaims(JANE, ['openid', 'profile', 'email']));
  for (const claim of released) assert.ok(CLAIMS_SUPPORTED.includes(claim), claim);
  assert.is(new Set(CLAIMS_SUPPORTED).size, CLAIMS_SUPPORTED.length);
});

t.run();
