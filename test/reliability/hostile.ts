/** Generators of hostile HTTP input for the fuzz suite (fast-check arbitraries). */
import fc from 'fast-check';

/** The field names the routes know, and names that attack JavaScript objects. */
export const FIELD_NAMES = [
  'name',
  'dateOfBirth',
  'id',
  'email',
  'userId',
  'type',
  'detail',
  'limit',
  'cursor',
  'before',
  'bornFrom',
  'bornTo',
  'grant_type',
  'username',
  'password',
  'scope',
  'refresh_token',
  'token',
  'token_type_hint',
  'client_id',
  'client_secret',
  'access_token',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
] as const;

const NASTY_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF\uD800',
  '\u202E',
  '\uFEFF',
  'ǅ',
  'İ',
  'ß',
  '👩‍👩‍👧',
  '\r\n',
  '%00',
  '%',
  '%zz',
  '%C0%AF',
  "' or 1=1 --",
  '"; drop table users; --',
  '../../etc/passwd',
  '${7*7}',
  '<script>alert(1)</script>',
  '*',
  '%_',
  '1990-02-30',
  '2000-13-01',
  '1899-12-31',
  '9999-12-31',
  '1990-4-12',
  '2024-02-29',
  '0000-00-00',
  'ABCDEFABCDEFABCDEFABCDEF',
  '0123456789abcdef0123456',
  '0123456789abcdef012345678',
  'USER_CREATED',
  'A'.repeat(65),
  'x'.repeat(201),
  'x'.repeat(100_000),
  'null',
  'true',
  '[]',
  '{}',
  '-1',
  '1e309',
  'NaN',
];

const NASTY_NUMBERS = [0, -0, -1, 1, 500, 501, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 1e-7, 0.5, Number.MAX_VALUE];

/** Strings a client might send by mistake or on purpose; `known` are ids of stored records. */
export function hostileString(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.constantFrom(...NASTY_STRINGS),
    fc.constantFrom(...FIELD_NAMES),
    fc.constantFrom(...known),
    fc.constantFrom(...known).map((s) => s.toUpperCase()),
    fc.emailAddress(),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  );
}

const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(Number),
  fc.constantFrom(...NASTY_NUMBERS),
);

/** JSON values with hostile leaves and keys (the field names, `__proto__` and the like). */
export function hostileJson(known: readonly string[]): fc.Arbitrary<unknown> {
  const key = fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string());
  const leaf = fc.oneof(hostileString(known), hostileNumber, fc.boolean(), fc.constant(null));
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    ),
  }));
  return value;
}

/** A plausible body for `fields`: the right names, hostile values; sometimes one more key. */
export function nearlyValid(
  fields: readonly string[],
  known: readonly string[],
): fc.Arbitrary<Record<string, unknown>> {
  const entries = fields.map((f) => [f, fc.option(hostileJson(known), { nil: undefined })] as const);
  return fc.record(Object.fromEntries(entries), { requiredKeys: [] });
}

/** Raw JSON text: duplicate keys, very deep nesting, huge documents, malformed text. */
export function rawJson(known: readonly string[]): fc.Arbitrary<string> {
  const pair = fc
    .tuple(fc.constantFrom(...FIELD_NAMES), hostileJson(known))
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`);
  return fc.oneof(
    fc.array(pair, { maxLength: 6 }).map((pairs) => `{${pairs.join(',')}}`),
    fc.integer({ min: 1, max: 200_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.integer({ min: 1, max: 50_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
    fc
      .tuple(fc.constantFrom(...FIELD_NAMES), fc.integer({ min: 1, max: 100_000 }))
      .map(
        ([f, n]) =>
          `{"userId":"${known[0] ?? ''}","type":"DEEP",${JSON.stringify(f)}:${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`,
      ),
    fc.constant(`{"name":"${'x'.repeat(1024 * 1024)}"}`),
    fc.constantFrom(
      '',
      '{',
      '{"a":1,}',
      "{'a':1}",
      '{"a":01}',
      '[1,2',
      'null',
      '"str"',
      '123',
      '\u0000{}',
      '\uFEFF{}',
      '{"__proto__":{"polluted":1}}',
    ),
    fc.string(),
  );
}

/** Form bodies for the OAuth endpoints (repeated parameters included). */
export function hostileForm(known: readonly string[]): fc.Arbitrary<string> {
  const pair = fc.tuple(
    fc.constantFrom(...FIELD_NAMES),
    fc.oneof(
      hostileString(known),
      fc.constantFrom('password', 'refresh_token', 'read', 'write', 'read write', 'john.doe', 'john-password', 'admin'),
    ),
  );
  return fc.oneof(
    fc.array(pair, { maxLength: 7 }).map((pairs) => new URLSearchParams(pairs).toString()),
    fc.constantFrom(
      'grant_type=password&username=john.doe&password=x',
      'grant_type=password&grant_type=password',
      '%',
      'a=%zz',
      '=&=&',
      '&&&',
      'token=',
    ),
    fc.string(),
  );
}

/** Query strings: known parameters with hostile values, repeats, broken percent-encoding. */
export function hostileQuery(known: readonly string[]): fc.Arbitrary<string> {
  const pair = fc.tuple(fc.constantFrom(...FIELD_NAMES), hostileString(known));
  return fc.oneof(
    fc.array(pair, { maxLength: 4 }).map((pairs) => new URLSearchParams(pairs).toString()),
    fc.constantFrom('', 'id=%', 'id=%zz', 'id', 'id=&id=', 'userId[]=1', 'limit=1&limit=2', '%E0%A4%A', 'a=%00'),
  );
}

/** Header values that `fetch` will send: printable Latin-1, no CR, LF or NUL. */
export const headerValue = fc.oneof(
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength: 300,
  }),
  fc.constantFrom(
    '"1"',
    '"2"',
    'W/"1"',
    '*',
    '"x"',
    '"1", "2"',
    '"-1"',
    '"99999999999999999999"',
    '',
    'x'.repeat(8000),
  ),
);
