/**
 * The password policy (NIST SP 800-63B §5.1.1.2): length in visible characters, no controls, no
 * common password, neither the username nor the product's name, no simple pattern.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dictionary } from '@zxcvbn-ts/language-common';
import { isCommonPassword, passwordPolicyRefusal } from '../../src/security/password-policy.ts';
import { pieceLengths, simplePattern } from '../../src/security/password-patterns.ts';
import { PUBLISHED_PASSWORDS } from '../../src/composition/development-accounts.ts';

const t = suite('security: password policy');

/** 36 different two-byte letters (72 bytes of UTF-8), and 72 ASCII characters, none a pattern. */
const CYRILLIC_36 = 'съешьжеещёэтихмягкихфранцузскихбулок';
const ASCII_72 = 'zq8-vx3w'.repeat(9).replace(/./g, (c, i: number) => (i % 9 === 0 ? String(i % 7) : c));

t('at least 8 characters, counted as code points, not bytes or UTF-16 units', () => {
  assert.match(passwordPolicyRefusal('') ?? '', /at least 8 characters/);
  assert.match(passwordPolicyRefusal('seven77') ?? '', /at least 8 characters/);
  assert.match(passwordPolicyRefusal('ééééééé') ?? '', /at least 8 characters/, '7 characters, 14 bytes');
  assert.match(passwordPolicyRefusal('🔑🔑🔑🔑🔑🔑🔑') ?? '', /at least 8 characters/, '7 characters, 14 UTF-16 units');
  assert.is(passwordPolicyRefusal('zq8-vx3w'), undefined);
  assert.is(passwordPolicyRefusal('🔑🔒🔓🗝️🔐🔏🛡🚪'), undefined, 'eight emoji (and a variation selector)');
});

t('blanks and invisible characters do not count towards the 8', () => {
  for (const blank of [' ', '\u00a0', '\u3000', '\u2003', '\u200b', '\u200d', '\u2060', '\ufeff', '\u3164', '\u2800'])
    assert.match(passwordPolicyRefusal(blank.repeat(10)) ?? '', /at least 8 characters/, JSON.stringify(blank));
  assert.match(passwordPolicyRefusal('zq8 vx3') ?? '', /not counting blanks/, '7 visible and a space');
  assert.match(passwordPolicyRefusal('zq8\u200bvx3\u200b') ?? '', /at least 8 characters/, '7 visible, 2 zero-width');
  assert.is(passwordPolicyRefusal('zq8 vx3wk'), undefined, '8 visible and a space');
});

t('at most 72 bytes of UTF-8, the most BCrypt reads', () => {
  assert.is([...CYRILLIC_36].length, 36);
  assert.is(ASCII_72.length, 72);
  assert.is(passwordPolicyRefusal(ASCII_72), undefined);
  assert.match(passwordPolicyRefusal(`${ASCII_72}x`) ?? '', /at most 72 bytes/);
  assert.is(passwordPolicyRefusal(CYRILLIC_36), undefined, '36 characters, 72 bytes');
  assert.match(passwordPolicyRefusal(`${CYRILLIC_36}ж`) ?? '', /at most 72 bytes/, '37 characters, 74 bytes');
});

t('control characters and lone surrogates are refused; spaces and any other Unicode are welcome', () => {
  for (const control of ['\u0000', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u009f'])
    assert.match(passwordPolicyRefusal(`correct${control}horse`) ?? '', /control characters/, JSON.stringify(control));
  assert.match(passwordPolicyRefusal('correct horse \ud800') ?? '', /well-formed Unicode/);
  assert.match(passwordPolicyRefusal('correct horse \udc00') ?? '', /well-formed Unicode/);
  assert.is(passwordPolicyRefusal('correct horse battery staple'), undefined);
  assert.is(passwordPolicyRefusal('пароль-не-угадать'), undefined);
  assert.is(passwordPolicyRefusal('パスワードは秘密です'), undefined);
});

t('a common password is refused in any case or width; the list is the 49,233 of zxcvbn', () => {
  const list = dictionary['passwords-common'];
  assert.ok(list.length >= 10_000, `the list holds ${list.length}`);
  for (const common of ['password', '12345678', 'iloveyou1', 'qwertyuiop', 'baseball', 'trustno1'])
    assert.match(passwordPolicyRefusal(common) ?? '', /most common passwords/, common);
  assert.match(passwordPolicyRefusal('PassWord1') ?? '', /most common passwords/, 'case is ignored');
  assert.match(passwordPolicyRefusal('ｐａｓｓｗｏｒｄ１') ?? '', /most common passwords/, 'width is ignored');
  // Every entry of the list that the length rules let through is refused as common.
  const eligible = list.filter((p) => [...p].length >= 8 && Buffer.byteLength(p) <= 72);
  assert.ok(eligible.length > 10_000, `${eligible.length} of them are 8 characters or more`);
  assert.ok(eligible.every(isCommonPassword));
  assert.ok(eligible.every((p) => passwordPolicyRefusal(p.toUpperCase()) !== undefined));
  assert.not.ok(isCommonPassword('correct horse battery staple'));
});

t('a common password with blanks or invisible characters added is still common', () => {
  for (const disguised of ['password\u200b1', '\u200bpassword1', 'pass word1', 'baseball\u00a0', 'trust\u2060no1'])
    assert.match(passwordPolicyRefusal(disguised) ?? '', /most common passwords/, JSON.stringify(disguised));
  assert.match(
    passwordPolicyRefusal('ｂａｓｅｂａｌｌ\u3000') ?? '',
    /most common passwords/,
    'a full-width blank too',
  );
  // A passphrase that merely holds common words is not refused for them.
  assert.is(passwordPolicyRefusal('my baseball glove is blue'), undefined);
  assert.is(passwordPolicyRefusal('password manager keeps this one'), undefined);
});

t('the username is refused, whole or as a part, in any case or spacing', () => {
  const refused = /contains the username/;
  assert.match(passwordPolicyRefusal('ursula-k', { username: 'ursula-k' }) ?? '', refused, 'the username itself');
  assert.match(passwordPolicyRefusal('Ursula-K', { username: 'ursula-k' }) ?? '', refused, 'in another case');
  assert.match(passwordPolicyRefusal('jane-password-1', { username: 'jane' }) ?? '', refused);
  assert.match(passwordPolicyRefusal('2024!JANE!2024', { username: 'jane' }) ?? '', refused);
  assert.match(
    passwordPolicyRefusal('j\u200ba n e-is-here', { username: 'jane' }) ?? '',
    refused,
    'invisibles, blanks',
  );
  assert.match(passwordPolicyRefusal('JohnDoe!2024', { username: 'john.doe' }) ?? '', refused, 'by letters and digits');
  assert.match(passwordPolicyRefusal('ｊａｎｅ-rocks-99', { username: 'Jane' }) ?? '', refused, 'in another width');
  assert.match(passwordPolicyRefusal('the-hal-9000', { username: 'hal' }) ?? '', refused, 'three letters suffice');
  // A name of fewer than three letters and digits would refuse too much as a part: only whole.
  assert.is(passwordPolicyRefusal('jo-walks-home', { username: 'jo' }), undefined);
  assert.is(passwordPolicyRefusal('zq8-vx3w', { username: 'z.q' }), undefined);
  // Other names are no concern, nor a username that is not given.
  assert.is(passwordPolicyRefusal('jane-password-1', { username: 'john.doe' }), undefined);
  assert.is(passwordPolicyRefusal('jane-password-1'), undefined);
});

t("the product's name is refused, configured or troupe, whole or as a part", () => {
  const refused = /contains the service's name/;
  assert.match(passwordPolicyRefusal('troupe') ?? '', /at least 8/);
  assert.match(passwordPolicyRefusal('troupe12') ?? '', refused);
  assert.match(passwordPolicyRefusal('my-TROUPE-login') ?? '', refused, 'without a product name configured');
  assert.match(passwordPolicyRefusal('t r o u p e 4 2') ?? '', refused, 'blanks do not hide it');
  const acme = { productName: 'Acme Portal' };
  assert.match(passwordPolicyRefusal('acmeportal', acme) ?? '', refused);
  assert.match(passwordPolicyRefusal('my acme-portal 7', acme) ?? '', refused);
  assert.match(passwordPolicyRefusal('troupe-acme-2', acme) ?? '', refused, 'troupe as well as the configured name');
  assert.is(passwordPolicyRefusal('acme rockets fly', acme), undefined, 'a part of the name is no concern');
});

t('mostly one character is refused', () => {
  for (const p of ['aaaaaaaa', 'aaaaaaab', 'aaaa5x7q', '🔑🔑🔑🔑🔑🔑🔑🔑', 'ééééééééé', 'x'.repeat(72)])
    assert.match(passwordPolicyRefusal(p) ?? '', /mostly one repeated character/, p);
  assert.is(simplePattern([...'aaa5x7qz']), undefined, 'three of eight');
});

t('only runs and sequences are refused: at most two pieces, or none shorter than three', () => {
  const refused = /only runs or sequences/;
  for (const p of [
    'abcdefghij',
    'ABCDEFGHIJ',
    'zyxwvutsrq',
    '0123456789',
    '9876543210',
    'mnop6789',
    'абвгдежз',
    'asdfghjkl;',
    ';lkjhgfdsa',
    'zxcvbnm,./',
    '!@#$%^&*()',
    'abc123xyz',
    'a b c d e f g h',
    'a\u200bbcdefgh',
  ])
    assert.match(passwordPolicyRefusal(p) ?? '', refused, p);
  assert.equal(pieceLengths([...'aaaabcde']), [4, 4], 'a piece is as long as one kind of step allows');
  assert.equal(pieceLengths([...'abcc']), [3, 1]);
  assert.equal(pieceLengths([...'zq8-vx3w']), [1, 1, 1, 1, 1, 1, 1, 1]);
  assert.is(passwordPolicyRefusal('abcd-vx3w'), undefined, 'a sequence among other characters');
});

t('a short block repeated to the end is refused', () => {
  for (const p of ['abcabcabc', '12121212', 'ab12ab12ab', 'xq7xq7xq7', 'Zq8!zq8!zq8'])
    assert.match(passwordPolicyRefusal(p) ?? '', /repeats a short block/, p);
  assert.is(passwordPolicyRefusal('Xk#9vQ2!Xk#9vQ2!'), undefined, 'a block of eight, twice');
});

t('strong passwords and passphrases pass every rule', () => {
  for (const p of [
    'correct horse battery staple',
    'ñandú-ñandú',
    'pa55-w0rd-m1x',
    'the quick brown fox',
    'maple-kettle-47',
    'Xk#9vQ2!Lm@4',
    'whale songs at dusk',
  ])
    assert.is(passwordPolicyRefusal(p, { username: 'jane', productName: 'Acme' }), undefined, p);
});

t('a reason never repeats the password', () => {
  for (const password of [
    'seven77',
    'Password1',
    'a\u0000secret-thing',
    'x'.repeat(80),
    'qwertyuiop[]',
    'jane-secret',
    'troupe-secret',
    'abcabcabc',
  ])
    assert.not.ok(passwordPolicyRefusal(password, { username: 'jane' })?.includes(password.slice(0, 5)), password);
});

t("the repository's published and example passwords pass, so development keeps working", () => {
  const examples = ['maple-kettle-47', 'juniper-password-1', 'juniper-password-2', 'long-enough', 'hazel-new-password'];
  for (const password of [...PUBLISHED_PASSWORDS, ...examples]) assert.is(passwordPolicyRefusal(password), undefined);
  // As its own account's password: john.doe's passes; admin's holds its username, and is only a hash
  // of the initial data, which no policy judges (docs/security.md).
  assert.is(passwordPolicyRefusal('john-password', { username: 'john.doe' }), undefined);
  assert.match(passwordPolicyRefusal('admin-password', { username: 'admin' }) ?? '', /contains the username/);
  assert.is(passwordPolicyRefusal('maple-kettle-47', { username: 'jane' }), undefined, "the README's jane");
});

t.run();
