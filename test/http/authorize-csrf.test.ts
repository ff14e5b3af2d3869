/** The sign-in form's CSRF token: bound to the browser's cookie and to the request, and usable for FORM_VALIDITY_S. */
import type { Context } from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CSRF_COOKIE, csrfTokenValid, FORM_VALIDITY_S, issueCsrfToken } from '../../http/authorize-csrf.ts';

const t = suite('the sign-in form: CSRF token');

/** A request context as the two functions read it: a cookie jar that keeps what is set. */
function browser(): Context {
  const jar = new Map<string, string>();
  return {
    secure: false,
    cookies: {
      get: (name: string) => jar.get(name),
      set: (name: string, value: string) => void jar.set(name, value),
    },
  } as unknown as Context;
}

const REQUEST = new Map([
  ['client_id', 'web-app'],
  ['redirect_uri', 'https://app.example/callback'],
  ['scope', 'read'],
]);

/** `run` with the clock moved on by `seconds`. */
function later<T>(seconds: number, run: () => T): T {
  const real = Date.now;
  const at = real() + seconds * 1000;
  Date.now = () => at;
  try {
    return run();
  } finally {
    Date.now = real;
  }
}

t('valid for the same browser and request until FORM_VALIDITY_S have passed, then refused', () => {
  const ctx = browser();
  const token = issueCsrfToken(ctx, REQUEST);
  assert.ok(ctx.cookies.get(CSRF_COOKIE));
  assert.ok(csrfTokenValid(ctx, token, REQUEST));
  assert.ok(later(FORM_VALIDITY_S - 1, () => csrfTokenValid(ctx, token, REQUEST)));
  assert.not.ok(later(FORM_VALIDITY_S + 1, () => csrfTokenValid(ctx, token, REQUEST)));
  assert.not.ok(
    later(-60, () => csrfTokenValid(ctx, token, REQUEST)),
    'served in the future',
  );
});

t('refused for another browser, another request, or a token not of this form', () => {
  const ctx = browser();
  const token = issueCsrfToken(ctx, REQUEST);
  assert.not.ok(csrfTokenValid(browser(), token, REQUEST));
  assert.not.ok(csrfTokenValid(ctx, token, new Map([...REQUEST, ['scope', 'read write']])));
  assert.not.ok(csrfTokenValid(ctx, undefined, REQUEST));
  assert.not.ok(csrfTokenValid(ctx, `${token}x`, REQUEST));
  const [issuedAt, digest] = token.split('.');
  assert.not.ok(csrfTokenValid(ctx, `${Number(issuedAt) + 1}.${digest}`, REQUEST), 'its time is part of the digest');
});

t.run();
