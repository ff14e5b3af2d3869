/**
 * The rule for a password set here (NIST SP 800-63B §5.1.1.2, memorized secrets chosen by their
 * subscriber), wherever one is set: an administrator's new account or reset, an account's own change.
 * - at least {@link MIN_PASSWORD_CHARACTERS} characters, counted as Unicode code points (so `é`
 *   is one, as a person counts it), and at most {@link MAX_PASSWORD_BYTES} bytes of UTF-8, the
 *   most BCrypt reads: a longer one would be silently truncated;
 * - no control character (C0, DEL, C1: nothing a person types on purpose) and well-formed Unicode
 *   (no lone surrogate, which UTF-8 cannot carry: two such passwords would hash alike);
 * - not one of the most common passwords: the `passwords-common` list of `@zxcvbn-ts/language-common`
 *   (49,233 passwords ranked by frequency in public breach corpora, in lower case), compared after
 *   NFKC normalization and case mapping, so `PASSWORD1`, `Password1` and `ｐａｓｓｗｏｒｄ１` are all
 *   `password1`.
 * Nothing else is demanded (no composition rules, no expiry), as NIST advises. The reasons never
 * repeat the password.
 */
import { dictionary } from '@zxcvbn-ts/language-common';
import { isTooLong, MAX_PASSWORD_BYTES } from './passwords.ts';

export const MIN_PASSWORD_CHARACTERS = 8;

/** The common passwords that could pass the other rules (the list's shorter ones never can). */
const COMMON: ReadonlySet<string> = new Set(
  dictionary['passwords-common'].filter((p) => [...p].length >= MIN_PASSWORD_CHARACTERS),
);

/** The form a password is compared with the common list in: compatibility-normalized, lower case. */
const comparable = (password: string): string => password.normalize('NFKC').toLowerCase();

/** Whether `password` (in any case or width) is one of the common passwords. */
export const isCommonPassword = (password: string): boolean => COMMON.has(comparable(password));

/** Why `password` cannot be set, in words fit for the caller (never the password), or undefined. */
export function passwordPolicyRefusal(password: string): string | undefined {
  if ([...password].length < MIN_PASSWORD_CHARACTERS)
    return `A password is at least ${MIN_PASSWORD_CHARACTERS} characters`;
  if (isTooLong(password)) return `A password is at most ${MAX_PASSWORD_BYTES} bytes of UTF-8`;
  if (/\p{Cc}/u.test(password)) return 'A password must not contain control characters';
  if (/\p{Cs}/u.test(password)) return 'A password must be well-formed Unicode (no lone surrogate)';
  if (isCommonPassword(password)) return 'The password is one of the most common passwords; choose another';
  return undefined;
}
