/**
 * The registered clients' credential check, which the guard of every client route runs itself
 * (no actor in between): BCrypt on the pool for a secret not seen before, and a secret that matched
 * once answered from memory by its hash, so a token request then costs no BCrypt for the client.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClientAuthenticator } from '../../src/security/clients.ts';
import { CLIENT } from '../helpers/token-actor.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';

const t = suite('security: the client authenticator', {} as { real: PasswordHasher; seen: string[] });
t.before((c) => {
  c.real = createPasswordHasher(1);
});
t.before.each((c) => {
  c.seen = [];
});
t.after(async (c) => c.real.close());

const counting = (c: { real: PasswordHasher; seen: string[] }): PasswordHasher => ({
  ...c.real,
  verify: (secret, hash) => {
    c.seen.push(secret);
    return c.real.verify(secret, hash);
  },
});

t('the right secret names the client; a wrong one, or an unknown client, names none', async (c) => {
  const authenticate = createClientAuthenticator([CLIENT], counting(c));
  assert.equal(await authenticate({ clientId: 'troupe-client', clientSecret: 'troupe-secret' }), CLIENT);
  assert.is(await authenticate({ clientId: 'troupe-client', clientSecret: 'wrong' }), undefined);
  assert.is(await authenticate({ clientId: 'nobody', clientSecret: 'troupe-secret' }), undefined);
});

t('one BCrypt check per distinct secret: a secret that matched once is answered from memory', async (c) => {
  const authenticate = createClientAuthenticator([CLIENT], counting(c));
  for (let i = 0; i < 3; i++)
    assert.equal(await authenticate({ clientId: 'troupe-client', clientSecret: 'troupe-secret' }), CLIENT);
  assert.is(await authenticate({ clientId: 'troupe-client', clientSecret: 'wrong' }), undefined);
  assert.equal(c.seen, ['troupe-secret', 'wrong']);
});

t('verified() answers at once, without BCrypt, only for the very secret that matched before', async (c) => {
  const authenticate = createClientAuthenticator([CLIENT], counting(c));
  const right = { clientId: 'troupe-client', clientSecret: 'troupe-secret' };
  assert.is(authenticate.verified(right), undefined, 'not before it has been checked');
  await authenticate({ ...right, clientSecret: 'wrong' });
  assert.is(
    authenticate.verified({ ...right, clientSecret: 'wrong' }),
    undefined,
    'a wrong secret is never remembered',
  );
  assert.equal(await authenticate(right), CLIENT);
  assert.equal(authenticate.verified(right), CLIENT);
  for (const other of ['troupe-secreT', 'troupe-secret ', ''])
    assert.is(authenticate.verified({ ...right, clientSecret: other }), undefined, JSON.stringify(other));
  assert.is(authenticate.verified({ clientId: 'nobody', clientSecret: 'troupe-secret' }), undefined);
  assert.equal(c.seen, ['wrong', 'troupe-secret'], 'verified() never runs BCrypt');
});

t.run();
