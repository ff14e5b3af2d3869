/**
 * The consent ticket: bound to the browser's CSRF cookie, the request, the account and an expiry,
 * under a key derived from the signing keys apart from the CSRF token's; checked against every key
 * that verifies, and gone with a key taken out. Each has an id of its own, which its decision spends.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { consentTickets, TICKET_VALIDITY_S, type ReadTicket } from '../../http/oauth/consent-ticket.ts';
import { authorizeCsrf, CSRF_COOKIE } from '../../http/oauth/csrf.ts';
import { generatePrivateKey, usableKey, type UsableKey } from '../../src/security/key-material.ts';
import { fixedKeyRing } from '../../src/security/key-ring.ts';
import { later } from '../helpers/clock.ts';

const t = suite('the consent ticket');

/** A browser holding the CSRF cookie value `value`. */
const browser = (value: string = randomBytes(32).toString('base64url')): Context =>
  ({
    secure: false,
    cookies: { get: (name: string) => (name === CSRF_COOKIE ? value : undefined), set: () => {} },
  }) as unknown as Context;

const REQUEST = new Map([
  ['client_id', 'partner-app'],
  ['redirect_uri', 'https://partner.example/callback'],
  ['scope', 'read'],
]);
const ACCOUNT = { accountId: 7, accountVersion: 3, username: 'kim', authTime: 1_900_000_000 };
const newKey = (): Promise<UsableKey> => usableKey(generatePrivateKey('ES256'), 'ES256');
/** The account a ticket read names, without the ticket's own id and expiry. */
const accountOf = (read: ReadTicket | undefined) => {
  if (!read) return undefined;
  const { ticket: _ticket, ...account } = read;
  return account;
};

t('read back by the same browser and request until its validity (five minutes) has passed', async () => {
  const tickets = consentTickets(fixedKeyRing(await newKey(), []));
  const ctx = browser();
  const ticket = await tickets.issue(ctx, REQUEST, ACCOUNT);
  assert.is(TICKET_VALIDITY_S, 300);
  assert.equal(accountOf(await tickets.read(ctx, ticket, REQUEST)), ACCOUNT);
  assert.equal(accountOf(await later(TICKET_VALIDITY_S - 1, () => tickets.read(ctx, ticket, REQUEST))), ACCOUNT);
  assert.is(await later(TICKET_VALIDITY_S + 1, () => tickets.read(ctx, ticket, REQUEST)), undefined, 'expired');
});

t('each ticket has an id of its own, read back with its expiry', async () => {
  const tickets = consentTickets(fixedKeyRing(await newKey(), []));
  const ctx = browser();
  const [one, two] = [await tickets.issue(ctx, REQUEST, ACCOUNT), await tickets.issue(ctx, REQUEST, ACCOUNT)];
  const [first, second] = [await tickets.read(ctx, one, REQUEST), await tickets.read(ctx, two, REQUEST)];
  assert.match(first?.ticket.id ?? '', /^[A-Za-z0-9_-]{22}$/);
  assert.not.equal(first?.ticket.id, second?.ticket.id, 'two pages of one request and browser: two tickets');
  assert.is(first?.ticket.expiresAt, Number(one.split('.')[0]));
});

t('refused for another browser, another request, a changed account, sign-in time or expiry, another key', async () => {
  const key = await newKey();
  const tickets = consentTickets(fixedKeyRing(key, []));
  const ctx = browser();
  const ticket = await tickets.issue(ctx, REQUEST, ACCOUNT);
  assert.is(await tickets.read(browser(), ticket, REQUEST), undefined, 'another cookie');
  assert.is(await tickets.read(ctx, ticket, new Map([...REQUEST, ['scope', 'read write']])), undefined);
  const [expiry = '', , mac = ''] = ticket.split('.');
  const forged = (...fields: unknown[]) => Buffer.from(JSON.stringify(fields)).toString('base64url');
  const other = forged(1, 3, 'admin', ACCOUNT.authTime, 'A'.repeat(22));
  assert.is(await tickets.read(ctx, `${expiry}.${other}.${mac}`, REQUEST), undefined, 'another account');
  const earlier = forged(7, 3, 'kim', ACCOUNT.authTime - 3600, 'A'.repeat(22));
  assert.is(await tickets.read(ctx, `${expiry}.${earlier}.${mac}`, REQUEST), undefined, 'another sign-in time');
  assert.is(await tickets.read(ctx, ticket.replace(/^\d+/, String(Number(expiry) - 1)), REQUEST), undefined);
  assert.is(await tickets.read(ctx, undefined, REQUEST), undefined);
  assert.is(await consentTickets(fixedKeyRing(await newKey(), [])).read(ctx, ticket, REQUEST), undefined);
  // Still good after a rotation (the old key verifies), not once the key is taken out.
  const rotated = consentTickets(fixedKeyRing(await newKey(), [key]));
  assert.equal(accountOf(await rotated.read(ctx, ticket, REQUEST)), ACCOUNT);
});

t('beside the CSRF token of a browser that came without the cookie: bound to the value that token set', async () => {
  const ring = fixedKeyRing(await newKey(), []);
  const set = new Map<string, string>();
  const bare = {
    secure: false,
    cookies: { get: () => undefined, set: (name: string, value: string) => void set.set(name, value) },
  } as unknown as Context;
  await authorizeCsrf(ring).issue(bare, REQUEST);
  const ticket = await consentTickets(ring).issue(bare, REQUEST, ACCOUNT);
  const value = set.get(CSRF_COOKIE);
  assert.type(value, 'string');
  assert.equal(accountOf(await consentTickets(ring).read(browser(value), ticket, REQUEST)), ACCOUNT);
  assert.is(await consentTickets(ring).read(browser(), ticket, REQUEST), undefined, 'another browser');
  const alone = { secure: false, cookies: { get: () => undefined, set: () => {} } } as unknown as Context;
  const refused = await consentTickets(ring)
    .issue(alone, REQUEST, ACCOUNT)
    .then(
      () => 'issued',
      (error: unknown) => String(error),
    );
  assert.match(refused, 'only beside a CSRF token', 'never bound to no cookie at all');
});

t('not a CSRF token: the two keys are derived apart', async () => {
  const ring = fixedKeyRing(await newKey(), []);
  const ctx = browser();
  const csrf = await authorizeCsrf(ring).issue(ctx, REQUEST);
  const ticket = await consentTickets(ring).issue(ctx, REQUEST, ACCOUNT);
  const [expiry = '', payload = ''] = ticket.split('.');
  const [, csrfMac = ''] = csrf.split('.');
  assert.is(await consentTickets(ring).read(ctx, `${expiry}.${payload}.${csrfMac}`, REQUEST), undefined);
});

t.run();
