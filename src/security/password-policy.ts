/**
 * The rule for a password set here (NIST SP 800-63B §5.1.1.2, memorized secrets chosen by their
 * subscriber), wherever one is set: an administrator's new account or reset, an account's own change.
 * - at least {@link MIN_PASSWORD_CHARACTERS} visible characters, counted as Unicode code points (so
 *   `é` is one, as a person counts it) without blanks and invisible characters (spaces of any kind,
 *   zero-width and other default-ignorable characters, format characters, the braille blank): eight
 *   spaces are no password; and at most {@link MAX_PASSWORD_BYTES} bytes of UTF-8, the most BCrypt
 *   reads: a longer one would be silently truncated;
 * - no control character (C0, DEL, C1: nothing a person types on purpose) and well-formed Unicode
 *   (no lone surrogate, which UTF-8 cannot carry: two such passwords would hash alike);
 * - not one of the most common passwords: the `passwords-common` list of `@zxcvbn-ts/language-common`
 *   (49,233 passwords ranked by frequency in public breach corpora, in lower case), compared in the
 *   {@link comparable} form, so `PASSWORD1`, `Password1`, `ｐａｓｓｗｏｒｄ１` and `pass word1` with a
 *   zero-width space are all `password1`;
 * - not the account's username, nor the product's name (`security.sign-in.product-name`, and
 *   `troupe`), nor one containing them: compared by their letters and digits in the comparable form,
 *   so `John.Doe-2024` holds `john.doe`; a name of fewer than three letters and digits is compared
 *   whole only, since as a part it would refuse too many passwords;
 * - not a simple pattern: mostly one character, only runs and sequences, a short block repeated
 *   (src/security/password-patterns.ts).
 * Nothing else is demanded (no composition rules, no expiry), as NIST advises, and a passphrase
 * that holds a common word is not refused for it. The reasons never repeat the password.
 */
import { dictionary } from '@zxcvbn-ts/language-common';
import { simplePattern, type PasswordPattern } from './password-patterns.ts';
import { isTooLong, MAX_PASSWORD_BYTES } from './passwords.ts';

export const MIN_PASSWORD_CHARACTERS = 8;

/** The product's own name, refused in a password whatever `security.sign-in.product-name` says. */
export const PRODUCT = 'troupe';

/** The shortest name (in letters and digits) refused as a part of a password, not only whole. */
const MIN_CONTAINED_NAME = 3;

/** Who a password is for: the names it must not hold. */
export interface PasswordContext {
  /** The account's username, as given or as stored. */
  readonly username?: string | undefined;
  /** `security.sign-in.product-name`. */
  readonly productName?: string | undefined;
}

/** Blanks and invisible characters: they do not count towards the length, nor in a comparison. */
const INVISIBLE = /[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\u2800]/gu;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{M}\p{N}]/gu;

const COMMON: ReadonlySet<string> = new Set(dictionary['passwords-common']);

/** The form a password is compared in: compatibility-normalized, lower case, without blanks or invisible characters. */
export const comparable = (password: string): string => password.normalize('NFKC').toLowerCase().replace(INVISIBLE, '');

/** The characters that count towards the length: all but blanks and invisible ones. */
export const visibleLength = (password: string): number => [...password.replace(INVISIBLE, '')].length;

/** Whether `password` (in any case or width, with blanks or invisible characters added) is one of the common passwords. */
export const isCommonPassword = (password: string): boolean => COMMON.has(comparable(password));

/** Whether `password` is `name`, or holds it (a name long enough to be looked for), by letters and digits. */
function holdsName(password: string, name: string): boolean {
  const whole = comparable(name);
  if (whole !== '' && comparable(password) === whole) return true;
  const letters = whole.replace(NOT_LETTER_OR_DIGIT, '');
  return (
    [...letters].length >= MIN_CONTAINED_NAME && comparable(password).replace(NOT_LETTER_OR_DIGIT, '').includes(letters)
  );
}

const PATTERNS: Readonly<Record<PasswordPattern, string>> = {
  'one-character': 'The password is mostly one repeated character; choose another',
  sequences:
    'The password is only runs or sequences of characters (repeated, in order or along a keyboard row); choose another',
  'repeated-block': 'The password repeats a short block of characters; choose another',
};

/** Why `password` cannot be set, in words fit for the caller (never the password), or undefined. */
export function passwordPolicyRefusal(password: string, context: PasswordContext = {}): string | undefined {
  if (visibleLength(password) < MIN_PASSWORD_CHARACTERS)
    return `A password is at least ${MIN_PASSWORD_CHARACTERS} characters, not counting blanks or invisible ones`;
  if (isTooLong(password)) return `A password is at most ${MAX_PASSWORD_BYTES} bytes of UTF-8`;
  if (/\p{Cc}/u.test(password)) return 'A password must not contain control characters';
  if (/\p{Cs}/u.test(password)) return 'A password must be well-formed Unicode (no lone surrogate)';
  if (isCommonPassword(password)) return 'The password is one of the most common passwords; choose another';
  if (context.username !== undefined && holdsName(password, context.username))
    return 'The password contains the username; choose another';
  if ([PRODUCT, context.productName ?? PRODUCT].some((name) => holdsName(password, name)))
    return "The password contains the service's name; choose another";
  const pattern = simplePattern([...comparable(password)]);
  return pattern === undefined ? undefined : PATTERNS[pattern];
}
