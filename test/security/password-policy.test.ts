/** The password policy (NIST SP 800-63B §5.1.1.2): length in characters, no controls, no common password. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dictionary } from '@zxcvbn-ts/language-common';
import { isCommonPassword, passwordPolicyRefusal } from '../../src/security/password-policy.ts';
import { PUBLISHED_PASSWORDS } from '../../src/development-accounts.ts';

const t = suite('security: password policy');

t('at least 8 characters, counted as code points, not bytes or UTF-16 units', () => {
  assert.match(passwordPolicyRefusal('') ?? '', /at least 8 characters/);
  assert.match(passwordPolicyRefusal('seven77') ?? '', /at least 8 characters/);
  assert.match(passwordPolicyRefusal('ééééééé') ?? '', /at least 8 characters/, '7 characters, 14 bytes');
  assert.match(passwordPolicyRefusal('🔑🔑🔑🔑🔑🔑🔑') ?? '', /at least 8 characters/, '7 characters, 14 UTF-16 units');
  assert.is(passwordPolicyRefusal('zq8-vx3w'), undefined);
  assert.is(passwordPolicyRefusal('🔑🔒🔓🗝️🔐🔏🛡🚪'), undefined, 'eight emoji (and a variation selector)');
});

t('at most 72 bytes of UTF-8, the most BCrypt reads', () => {
  assert.is(passwordPolicyRefusal('x'.repeat(72)), undefined);
  assert.match(passwordPolicyRefusal('x'.repeat(73)) ?? '', /at most 72 bytes/);
  assert.is(passwordPolicyRefusal('é'.repeat(36)), undefined, '36 characters, 72 bytes');
  assert.match(passwordPolicyRefusal('é'.repeat(37)) ?? '', /at most 72 bytes/, '37 characters, 74 bytes');
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

t('a reason never repeats the password', () => {
  for (const password of ['seven77', 'Password1', 'a\u0000secret-thing', 'x'.repeat(80)])
    assert.not.ok(passwordPolicyRefusal(password)?.includes(password.slice(0, 5)));
});

t("the repository's published and example passwords pass, so development keeps working", () => {
  const examples = ['jane-password-1', 'jane-password-2', 'long-enough', 'hal-new-password', 'lou-new-password'];
  for (const password of [...PUBLISHED_PASSWORDS, ...examples]) assert.is(passwordPolicyRefusal(password), undefined);
});

t.run();
