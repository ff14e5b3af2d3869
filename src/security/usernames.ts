/**
 * The rule for usernames, so that no account can be made to look like another: after RFC 8265's
 * UsernameCaseMapped profile (PRECIS IdentifierClass), with Unicode NFKC for its width mapping,
 * and UTS #39's restriction levels against confusable letters.
 *
 * - **One form**: a username is compared, and a new one stored, in its canonical form: NFKC (full
 *   width to ASCII, ligatures and other compatibility forms to their letters), lower case
 *   (`toLowerCase`, as RFC 8264 prescribes, not case folding), NFKC again. `Ｊａｎｅ`, `JANE` and
 *   `jane` are one username, `jane`.
 * - **Visible characters only**: letters, digits and combining marks of any assigned code point,
 *   and the ASCII punctuation and symbols (`!` to `~`). Refused: control characters; format
 *   characters and every default-ignorable one (bidirectional controls such as U+202E, zero-width
 *   characters, variation selectors, fillers), all invisible; spaces of any kind; unassigned and
 *   private-use code points; symbols and punctuation beyond ASCII (emoji included); a combining mark
 *   first, the same mark twice in a row or more than four in a row; conjoining Hangul jamo.
 * - **One script** (UTS #39 "highly restrictive"): the letters come from scripts in common modern
 *   use (UTS #31, table 5), and from one of them, or from Latin with Han and Japanese kana, with Han
 *   and Bopomofo, or with Han and Hangul; digits from one numbering system. `аdmin` with a Cyrillic
 *   `а` is refused.
 * - **Right to left**: a name in Arabic, Hebrew or Thaana letters starts with a letter and ends with
 *   a letter or a digit (RFC 5893's Bidi Rule, for the scripts allowed here), so that punctuation
 *   at either end cannot move across the name when it is displayed.
 *
 * A name that is confusable as a whole with another of a different script (UTS #39 whole-script
 * confusables, such as an all-Cyrillic `сеж` for Latin `cex`) is not detected: that needs the
 * confusables data, which this rule does not carry.
 */
import { z } from 'zod';
import type { AccountRecord, AccountStore } from '../stores/account-store.ts';

/** The longest username, in UTF-16 code units of its canonical form (as before this rule). */
export const MAX_USERNAME_LENGTH = 255;

/** The form usernames are compared in, and a new one stored in. Total: every string has one. */
export const canonicalUsername = (name: string): string => name.normalize('NFKC').toLowerCase().normalize('NFKC');

/** Scripts in common modern use (UTS #31 table 5, Recommended Scripts). */
const RECOMMENDED_SCRIPTS = [
  'Arabic',
  'Armenian',
  'Bengali',
  'Bopomofo',
  'Cyrillic',
  'Devanagari',
  'Ethiopic',
  'Georgian',
  'Greek',
  'Gujarati',
  'Gurmukhi',
  'Han',
  'Hangul',
  'Hebrew',
  'Hiragana',
  'Kannada',
  'Katakana',
  'Khmer',
  'Lao',
  'Latin',
  'Malayalam',
  'Myanmar',
  'Oriya',
  'Sinhala',
  'Tamil',
  'Telugu',
  'Thaana',
  'Thai',
  'Tibetan',
] as const;
const SCRIPT_TESTS = RECOMMENDED_SCRIPTS.map((name) => ({ name, test: new RegExp(`^\\p{scx=${name}}$`, 'u') }));
/** UTS #39's augmented script sets: Han, kana and Hangul write Japanese (Jpan), Korean (Kore), Bopomofo Chinese (Hanb). */
const AUGMENTED: Readonly<Record<string, readonly string[]>> = {
  Han: ['Jpan', 'Kore', 'Hanb'],
  Hiragana: ['Jpan'],
  Katakana: ['Jpan'],
  Hangul: ['Kore'],
  Bopomofo: ['Hanb'],
};
/** The scripts Latin may be mixed with (UTS #39 "highly restrictive"). */
const WITH_LATIN: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];
const RIGHT_TO_LEFT = /[\p{scx=Arabic}\p{scx=Hebrew}\p{scx=Thaana}]/u;

const ANY_SCRIPT = /^[\p{scx=Common}\p{scx=Inherited}]$/u;
const ALLOWED = /^[\x21-\x7E\p{Ll}\p{Lu}\p{Lo}\p{Lm}\p{Nd}\p{Mn}\p{Mc}]$/u;
const HANGUL_JAMO = /[\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF]/u;

/** The scripts of one code point among the recommended ones (augmented), or undefined for any script. */
function scriptsOf(char: string): ReadonlySet<string> | undefined {
  if (ANY_SCRIPT.test(char)) return undefined;
  const scripts = new Set<string>();
  for (const { name, test } of SCRIPT_TESTS)
    if (test.test(char)) {
      scripts.add(name);
      for (const more of AUGMENTED[name] ?? []) scripts.add(more);
    }
  return scripts;
}

/** Whether the letters of `chars` are of one script, or of Latin and one of the East Asian mixes. */
function oneScript(chars: readonly string[]): boolean | 'unusual' {
  const sets: ReadonlySet<string>[] = [];
  for (const char of chars) {
    const scripts = scriptsOf(char);
    if (scripts === undefined) continue;
    if (scripts.size === 0) return 'unusual';
    sets.push(scripts);
  }
  const [first, ...rest] = sets;
  if (first === undefined || [...first].some((s) => rest.every((set) => set.has(s)))) return true;
  return WITH_LATIN.some((mix) => sets.every((set) => mix.some((s) => set.has(s))));
}

/** The zero of a decimal digit's numbering system (Unicode codes each system's ten digits in a row). */
function zeroOf(digit: string): number {
  const cp = digit.codePointAt(0) ?? 0;
  let start = cp;
  while (start > 0 && /\p{Nd}/u.test(String.fromCodePoint(start - 1))) start -= 1;
  return cp - ((cp - start) % 10);
}

/** Why `name` cannot be a new username (judged in its canonical form), in words for the caller, or undefined. */
export function usernameRefusal(name: string): string | undefined {
  const canonical = canonicalUsername(name);
  const chars = [...canonical];
  if (chars.length === 0) return 'must not be empty';
  if (canonical.length > MAX_USERNAME_LENGTH) return `must be at most ${MAX_USERNAME_LENGTH} characters`;
  if (/\p{Cc}/u.test(canonical)) return 'must not contain control characters';
  if (/[\p{Cf}\p{Default_Ignorable_Code_Point}]/u.test(canonical))
    return 'must not contain invisible characters (format, zero-width or bidirectional controls)';
  if (/[\p{White_Space}\p{Z}]/u.test(canonical)) return 'must not contain spaces';
  if (/\p{Cs}/u.test(canonical)) return 'must be well-formed Unicode';
  if (/[\p{Cn}\p{Co}]/u.test(canonical)) return 'must not contain unassigned or private-use code points';
  if (HANGUL_JAMO.test(canonical)) return 'must not contain conjoining Hangul jamo (write syllables)';
  if (!chars.every((c) => ALLOWED.test(c)))
    return 'may contain only letters, digits, combining marks and ASCII punctuation';
  if (/^\p{M}/u.test(canonical)) return 'must not start with a combining mark';
  if (/(\p{Mn})\1|\p{Mn}{5}/u.test(canonical)) return 'must not repeat a combining mark or stack more than four';
  const scripts = oneScript(chars);
  if (scripts === 'unusual') return 'must be written in a script in common modern use';
  if (!scripts) return 'must not mix scripts (such as Latin and Cyrillic letters), which can make it look like another';
  if (new Set(chars.filter((c) => /\p{Nd}/u.test(c)).map(zeroOf)).size > 1)
    return 'must not mix digits of different numbering systems';
  if (RIGHT_TO_LEFT.test(canonical) && !/^\p{L}.*[\p{L}\p{Nd}]\p{M}*$|^\p{L}\p{M}*$/su.test(canonical))
    return 'written right to left, must start with a letter and end with a letter or digit';
  return undefined;
}

/**
 * A new username as administration takes it (HTTP and the REPL alike): refused with the rule it
 * fails, or given back in its canonical form, the form it is stored in.
 */
export const newUsername = z
  .string()
  .max(4 * MAX_USERNAME_LENGTH)
  .describe(
    'Stored in its canonical form (NFKC, lower case); letters, digits and combining marks of one script in common use, and ASCII punctuation',
  )
  .transform((name, ctx) => {
    const why = usernameRefusal(name);
    if (why === undefined) return canonicalUsername(name);
    ctx.addIssue({ code: 'custom', message: why });
    return z.NEVER;
  });

/**
 * The account a login names: the one stored under exactly that name (so an account whose name
 * predates this rule logs in by it as ever), else the one stored under its canonical form.
 */
export async function findAccountForLogin(
  store: Pick<AccountStore, 'findByUsername'>,
  username: string,
): Promise<AccountRecord | undefined> {
  const exact = await store.findByUsername(username);
  if (exact) return exact;
  const canonical = canonicalUsername(username);
  return canonical === username ? undefined : store.findByUsername(canonical);
}

/**
 * The account store as account administration creates accounts through it: a new account is
 * refused `account.username_taken` when an account's username has the same canonical form, so two
 * names that differ only in case or width never both exist. New names are canonical, so the store's
 * own uniqueness settles a race between two of them; the reading here finds the older names that are
 * not (created before this rule, or by the initial data), which no request can add to.
 */
export function withCanonicalUniqueness(store: AccountStore): AccountStore {
  return {
    ...store,
    async createAccount(account) {
      const canonical = canonicalUsername(account.username);
      if ((await store.listAll()).some((a) => canonicalUsername(a.username) === canonical))
        return 'account.username_taken';
      return store.createAccount(account);
    },
  };
}
