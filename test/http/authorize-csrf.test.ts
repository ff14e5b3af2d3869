/**
 * The sign-in form's CSRF token: an HMAC under a key derived from the signing keys, bound to the
 * browser's cookie and to the request, usable for FORM_VALIDITY_S; the cookie is kept across forms,
 * and over HTTPS it is the `__Host-` one.
 */
import { createHmac, createSecretKey, hash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  authorizeCsrf,
  CSRF_COOKIE,
  FORM_VALIDITY_S,
  SECURE_CSRF_COOKIE,
  type AuthorizeCsrf,
} from '../../http/oauth/csrf.ts';
import {
  generatePrivateKey,
  keyFromJwkJson,
  privateJwkJson,
  usableKey,
  type UsableKey,
} from '../../src/security/key-material.ts';
import { fixedKeyRing } from '../../src/security/key-ring.ts';
import { later } from '../helpers/clock.ts';

const t = suite('the sign-in form: CSRF token');

interface Jar {
  readonly values: Map<string, string>;
  readonly options: Map<string, Record<string, unknown>>;
}

/** A request context as the functions read it: a cookie jar that keeps what is set, and its options. */
function browser(secure = false, jar: Jar = { values: new Map(), options: new Map() }): Context & { jar: Jar } {
  return {
    secure,
    jar,
    cookies: {
      get: (name: string) => jar.values.get(name),
      set: (name: string, value: string, options: Record<string, unknown>) => {
        jar.values.set(name, value);
        jar.options.set(name, options);
      },
    },
  } as unknown as Context & { jar: Jar };
}

const REQUEST = new Map([
  ['client_id', 'web-app'],
  ['redirect_uri', 'https://app.example/callback'],
  ['scope', 'read'],
]);
const OTHER_REQUEST = new Map([...REQUEST, ['scope', 'read write']]);

const newKey = (): Promise<UsableKey> => usableKey(generatePrivateKey('ES256'), 'ES256');
const csrfOf = async (key?: UsableKey, previous: UsableKey[] = []): Promise<AuthorizeCsrf> =>
  authorizeCsrf(fixedKeyRing(key ?? (await newKey()), previous));

t('valid for the same browser and request until FORM_VALIDITY_S have passed, then refused', async () => {
  const csrf = await csrfOf();
  const ctx = browser();
  const token = await csrf.issue(ctx, REQUEST);
  assert.ok(ctx.cookies.get(CSRF_COOKIE));
  assert.ok(await csrf.valid(ctx, token, REQUEST));
  assert.ok(await later(FORM_VALIDITY_S - 1, () => csrf.valid(ctx, token, REQUEST)));
  assert.not.ok(await later(FORM_VALIDITY_S + 1, () => csrf.valid(ctx, token, REQUEST)));
  assert.not.ok(await later(-60, () => csrf.valid(ctx, token, REQUEST)), 'served in the future');
});

t('refused for another browser, another request, or a token not of this form', async () => {
  const csrf = await csrfOf();
  const ctx = browser();
  const token = await csrf.issue(ctx, REQUEST);
  const other = browser();
  await csrf.issue(other, REQUEST);
  assert.not.ok(await csrf.valid(other, token, REQUEST), "another browser's cookie");
  assert.not.ok(await csrf.valid(browser(), token, REQUEST), 'no cookie');
  assert.not.ok(await csrf.valid(ctx, token, OTHER_REQUEST));
  assert.not.ok(await csrf.valid(ctx, undefined, REQUEST));
  assert.not.ok(await csrf.valid(ctx, `${token}x`, REQUEST));
  const [issuedAt, mac] = token.split('.');
  assert.not.ok(await csrf.valid(ctx, `${Number(issuedAt) + 1}.${mac}`, REQUEST), 'its time is part of the MAC');
});

t('a cookie value of one’s choosing with a token made without the key is refused', async () => {
  const csrf = await csrfOf();
  const chosen = randomBytes(32).toString('base64url');
  const ctx = browser();
  ctx.jar.values.set(CSRF_COOKIE, chosen);
  const issuedAt = Math.floor(Date.now() / 1000);
  const sorted = [...REQUEST].sort(([a], [b]) => (a < b ? -1 : 1));
  const payload = JSON.stringify([chosen, issuedAt, sorted]);
  // The unkeyed digest this token once was, and the same HMAC under a key of one's own.
  const unkeyed = hash('sha256', payload, 'base64url');
  const ownKey = createHmac('sha256', randomBytes(32)).update(payload).digest('base64url');
  for (const forged of [unkeyed, ownKey]) assert.not.ok(await csrf.valid(ctx, `${issuedAt}.${forged}`, REQUEST));
  // Another server's key is no better.
  const elsewhere = await csrfOf();
  assert.not.ok(await csrf.valid(ctx, await elsewhere.issue(ctx, REQUEST), REQUEST));
  assert.ok(await csrf.valid(ctx, await csrf.issue(ctx, REQUEST), REQUEST), 'only this key’s token passes');
});

t('a second form in the same browser keeps the cookie: both forms stay valid', async () => {
  const csrf = await csrfOf();
  const ctx = browser();
  const first = await csrf.issue(ctx, REQUEST);
  const cookie = ctx.cookies.get(CSRF_COOKIE);
  const second = await csrf.issue(ctx, OTHER_REQUEST);
  const again = await csrf.issue(ctx, REQUEST);
  assert.is(ctx.cookies.get(CSRF_COOKIE), cookie);
  assert.ok(await csrf.valid(ctx, first, REQUEST));
  assert.ok(await csrf.valid(ctx, second, OTHER_REQUEST));
  assert.ok(await csrf.valid(ctx, again, REQUEST));
  ctx.jar.values.set(CSRF_COOKIE, 'not a value of ours');
  await csrf.issue(ctx, REQUEST);
  assert.match(ctx.cookies.get(CSRF_COOKIE) ?? '', /^[A-Za-z0-9_-]{43}$/, 'a malformed value is replaced');
});

t('a key that still verifies keeps its forms valid; a key taken out takes them with it', async () => {
  const [old, next] = [await newKey(), await newKey()];
  const ctx = browser();
  const token = await (await csrfOf(old)).issue(ctx, REQUEST);
  assert.ok(await (await csrfOf(next, [old])).valid(ctx, token, REQUEST), 'after a rotation');
  assert.not.ok(await (await csrfOf(next)).valid(ctx, token, REQUEST), 'after the key is gone');
});

t('the same key in another process (its JWK read from the store) checks the same tokens, EC or MAC', async () => {
  for (const key of [await newKey(), await usableKey(createSecretKey(randomBytes(32)), 'HS256')]) {
    const copy = await usableKey(keyFromJwkJson(privateJwkJson(key.signKey)), key.alg);
    assert.is(copy.kid, key.kid);
    const ctx = browser();
    const token = await (await csrfOf(key)).issue(ctx, REQUEST);
    assert.ok(await (await csrfOf(copy)).valid(ctx, token, REQUEST), key.alg);
  }
});

t('over HTTPS the cookie is __Host- (Secure, Path=/); a cookie of the plain name is ignored there', async () => {
  const csrf = await csrfOf();
  const ctx = browser(true);
  const token = await csrf.issue(ctx, REQUEST);
  assert.ok(ctx.cookies.get(SECURE_CSRF_COOKIE));
  assert.is(ctx.cookies.get(CSRF_COOKIE), undefined);
  const options = ctx.jar.options.get(SECURE_CSRF_COOKIE);
  assert.is(options?.['secure'], true);
  assert.is(options?.['path'], '/');
  assert.is(options?.['domain'], undefined);
  assert.is(options?.['httpOnly'], true);
  assert.is(options?.['sameSite'], 'lax');
  assert.ok(await csrf.valid(ctx, token, REQUEST));
  // A pair served over plain HTTP (a cookie anyone on the way, or a sibling host, could plant) is
  // refused over HTTPS, even with its own token.
  const plain = browser();
  const plainToken = await csrf.issue(plain, REQUEST);
  const tossed = browser(true, plain.jar);
  assert.not.ok(await csrf.valid(tossed, plainToken, REQUEST));
  const plainOptions = plain.jar.options.get(CSRF_COOKIE);
  assert.is(plainOptions?.['secure'], false);
  assert.is(plainOptions?.['path'], '/oauth/authorize');
});

t.run();
