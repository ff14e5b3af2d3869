/** The username rule: one canonical form (NFKC, lower case), visible characters of one script. */
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { schemas as accountSchemas } from '../../actors/accounts/protocol.ts';
import { CreateAccountInput } from '../../http/routes/accounts.ts';
import {
  canonicalUsername,
  findAccountForLogin,
  newUsername,
  usernameRefusal,
  withCanonicalUniqueness,
} from '../../src/security/usernames.ts';
import type { AccountRecord, AccountStore, NewAccount } from '../../src/stores/account-store.ts';

const t = suite('security: usernames');

t('the canonical form: NFKC (width, compatibility forms), then lower case', () => {
  const same: [string, string][] = [
    ['Jane', 'jane'],
    ['ＪＡＮＥ', 'jane'],
    ['ｊａｎｅ', 'jane'],
    ['ⓙane', 'jane'],
    ['ﬁnn', 'finn'],
    ['ΣΊΣΥΦΟΣ', 'σίσυφος'],
    ['zoe\u0308', 'zo\u00eb'],
    ['ﾊﾝｶｸ', 'ハンカク'],
    ['ẞ', 'ß'],
  ];
  for (const [name, canonical] of same) assert.is(canonicalUsername(name), canonical, name);
});

t('the canonical form is stable, and the rule judges a name as its canonical form', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme-composite', maxLength: 20 }), (name) => {
      const canonical = canonicalUsername(name);
      return canonicalUsername(canonical) === canonical && usernameRefusal(canonical) === usernameRefusal(name);
    }),
    { numRuns: 2000 },
  );
});

t('accepted: letters, digits, marks and ASCII punctuation of one script (or a CJK mix with Latin)', () => {
  const names = [
    'admin',
    'john.doe',
    'user@example.com',
    'a_b-c.d+e',
    'zoë',
    'naïve',
    'Иван',
    'Ελένη',
    '山田たろう',
    'taro山田',
    '김철수',
    'kim김',
    'محمد',
    'محمد1',
    'שלום',
    'राम',
  ];
  for (const name of names) assert.is(usernameRefusal(name), undefined, name);
});

t('refused, each with the rule it fails', () => {
  const refusals: [name: string, rule: RegExp][] = [
    ['', /must not be empty/],
    ['x'.repeat(256), /at most 255/],
    ['tab\tbed', /control characters/],
    ['nul\u0000', /control characters/],
    ['adm\u202Ein', /invisible characters/], // RIGHT-TO-LEFT OVERRIDE
    ['\u2066admin\u2069', /invisible characters/], // isolates
    ['ad\u200Bmin', /invisible characters/], // ZERO WIDTH SPACE
    ['ad\u200Dmin', /invisible characters/], // ZERO WIDTH JOINER
    ['ad\u00ADmin', /invisible characters/], // SOFT HYPHEN
    ['admin\uFE0F', /invisible characters/], // a variation selector
    ['ad\u3164min', /invisible characters/], // HANGUL FILLER, a letter that shows nothing
    ['   ', /spaces/],
    ['jane doe', /spaces/],
    ['jane\u00A0doe', /spaces/],
    ['jane\u3000doe', /spaces/],
    ['bad\ud800', /well-formed/],
    ['x\uE000', /unassigned or private-use/],
    ['x\u0378', /unassigned or private-use/],
    ['bob😀', /only letters, digits, combining marks and ASCII punctuation/],
    ['©bob', /only letters/],
    ['jane’s', /only letters/],
    ['\u0301abc', /start with a combining mark/],
    ['ab\u0300\u0300', /repeat a combining mark/],
    ['x\u0300\u0301\u0302\u0303\u0304', /stack more than four/],
    ['\u1100\u1100', /Hangul jamo/],
    ['аdmin', /mix scripts/], // a Cyrillic а
    ['pаypal', /mix scripts/],
    ['ivan-иван', /mix scripts/],
    ['αlpha', /mix scripts/], // a Greek α
    ['kim김山田たろう', /mix scripts/],
    ['user١٢', /mix scripts|numbering systems/],
    ['محمد12١٢', /numbering systems/],
    ['ⴰⵣⵓⵍ', /script in common modern use/], // Tifinagh
    ['\u16A0\u16A2', /script in common modern use/], // runes
    ['محمد.', /right to left/],
    ['.שלום', /right to left/],
  ];
  for (const [name, rule] of refusals) assert.match(usernameRefusal(name) ?? 'accepted', rule, JSON.stringify(name));
});

t('the schema refuses with the rule, or gives the canonical form; HTTP and the REPL share it', () => {
  assert.equal(newUsername.safeParse('ＪａＮｅ'), { success: true, data: 'jane' });
  const refused = newUsername.safeParse('аdmin');
  assert.not.ok(refused.success);
  assert.match(refused.error?.issues[0]?.message ?? '', /mix scripts/);
  const http = CreateAccountInput.safeParse({ username: 'Ｊａｎｅ', password: 'x', roles: [] });
  assert.is(http.data?.username, 'jane');
  const repl = accountSchemas.CreateAccount.safeParse({
    actor: 'admin',
    username: 'JANE',
    password: 'x',
    firstName: '',
    lastName: '',
    roles: [],
  });
  assert.is(repl.data?.username, 'jane');
  assert.not.ok(accountSchemas.CreateAccount.safeParse({ ...repl.data, username: 'ad\u200Bmin' }).success);
});

const account = (id: number, username: string): AccountRecord => ({
  id,
  username,
  password: '$2b$04$',
  firstName: '',
  lastName: '',
  email: null,
  roles: [],
  enabled: true,
  securityVersion: 0,
  updatedAt: 1,
});

/** The few calls these functions make, over a list. */
function storeOf(...names: string[]): AccountStore & { readonly created: string[] } {
  const accounts = names.map((n, i) => account(i + 1, n));
  const created: string[] = [];
  const store = {
    created,
    findByUsername: async (username: string) => accounts.find((a) => a.username === username),
    listAll: async () => accounts,
    createAccount: async (a: NewAccount) => {
      if (accounts.some((x) => x.username === a.username)) return 'account.username_taken' as const;
      const made = account(accounts.length + 1, a.username);
      accounts.push(made);
      created.push(a.username);
      return made;
    },
  };
  return store as unknown as AccountStore & { readonly created: string[] };
}

t('a login finds its account by the exact name first, else by the canonical form', async () => {
  const store = storeOf('jane', 'Ops Team', 'Émile');
  assert.is((await findAccountForLogin(store, 'jane'))?.id, 1);
  assert.is((await findAccountForLogin(store, 'JANE'))?.id, 1);
  assert.is((await findAccountForLogin(store, 'Ｊａｎｅ'))?.id, 1);
  assert.is((await findAccountForLogin(store, 'Ops Team'))?.id, 2, 'an older name the rule refuses, exactly');
  assert.is((await findAccountForLogin(store, 'Émile'))?.id, 3, 'an older name in upper case, exactly');
  assert.is(await findAccountForLogin(store, 'émile'), undefined, 'an older name is not found by its canonical form');
  assert.is(await findAccountForLogin(store, 'nobody'), undefined);
});

t('a new account whose canonical name another has is refused, older names included', async () => {
  const store = withCanonicalUniqueness(storeOf('jane', 'Émile'));
  const create = (username: string) =>
    store.createAccount({
      username,
      password: '',
      firstName: '',
      lastName: '',
      roles: [],
      enabled: true,
      updatedAt: 1,
    });
  assert.is(await create('jane'), 'account.username_taken');
  assert.is(await create('émile'), 'account.username_taken', 'differs from the older `Émile` only in case');
  assert.is(await create('ÉMILE'), 'account.username_taken', 'compared canonically');
  assert.is(((await create('emile')) as AccountRecord).username, 'emile', 'without the accent, another name');
});

t.run();
