/**
 * Passwords whose characters follow a simple pattern, which guessing tools try long before their
 * lists run out. The password is read as its characters (code points, in the form the policy
 * compares in: no blanks, no invisible characters, lower case), and a pattern is one of:
 * - **one character**: a single character makes up at least half of them (`aaaaaaaa`, `aaaa5x7q`);
 * - **runs and sequences**: split from the left into pieces, each as long as it can be, where a piece
 *   is a run of one character (`aaaa`), an ascending or descending sequence of letters or digits
 *   (`abcd`, `9876`, `абвг`) or a run along a row of a US keyboard, either way (`asdf`, `;lkj`): at
 *   most two pieces (`abcdefghij`, `aaaa1234`), or no piece shorter than three (`abc123xyz`);
 * - **a repeated block**: a block of two to four characters, not all one, repeated to the end
 *   (`abcabcabc`, `12121212`, `ab12ab12ab`).
 * A passphrase of words is none of these, whatever words it holds.
 */

export type PasswordPattern = 'one-character' | 'sequences' | 'repeated-block';

/** The rows of a US keyboard, unshifted and shifted: neighbours in a row are a keyboard run. */
const KEYBOARD_ROWS: readonly string[] = [
  '`1234567890-=',
  'qwertyuiop[]\\',
  "asdfghjkl;'",
  'zxcvbnm,./',
  '~!@#$%^&*()_+',
  'qwertyuiop{}|',
  'asdfghjkl:"',
  'zxcvbnm<>?',
];

/** How one character may lead to the next within a piece. */
type Step = 'same' | 'up' | 'down' | 'key-right' | 'key-left';

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/** The steps that lead from `a` to `b` (several may: `o` to `p` is both `up` and `key-right`). */
function stepsBetween(a: string, b: string): ReadonlySet<Step> {
  const steps = new Set<Step>();
  if (a === b) steps.add('same');
  if (LETTER_OR_DIGIT.test(a) && LETTER_OR_DIGIT.test(b)) {
    const d = (b.codePointAt(0) ?? 0) - (a.codePointAt(0) ?? 0);
    if (d === 1) steps.add('up');
    if (d === -1) steps.add('down');
  }
  for (const row of KEYBOARD_ROWS) {
    const i = row.indexOf(a);
    if (i < 0) continue;
    if (row[i + 1] === b) steps.add('key-right');
    if (i > 0 && row[i - 1] === b) steps.add('key-left');
  }
  return steps;
}

/** The lengths of the pieces `chars` splits into, from the left, each as long as one kind of step allows. */
export function pieceLengths(chars: readonly string[]): number[] {
  const lengths: number[] = [];
  let kinds: ReadonlySet<Step> | undefined; // the steps the current piece can still continue with
  let length = 0;
  for (let i = 0; i < chars.length; i++) {
    const prev = chars[i - 1];
    const next = prev === undefined ? new Set<Step>() : stepsBetween(prev, chars[i] ?? '');
    const still: ReadonlySet<Step> = new Set([...next].filter((s) => kinds === undefined || kinds.has(s)));
    if (length > 0 && still.size > 0) {
      kinds = still;
      length += 1;
    } else {
      if (length > 0) lengths.push(length);
      kinds = undefined;
      length = 1;
    }
  }
  if (length > 0) lengths.push(length);
  return lengths;
}

/**
 * Whether `chars` is a block of `size` characters, not all one, repeated to the end (the last
 * repeat may be cut short). A block of one character is the `one-character` pattern.
 */
const repeats = (chars: readonly string[], size: number): boolean =>
  chars.length >= 2 * size && new Set(chars.slice(0, size)).size > 1 && chars.every((c, i) => c === chars[i % size]);

/** The simple pattern `chars` follows (the first of a repeated block, one character, sequences), or undefined. */
export function simplePattern(chars: readonly string[]): PasswordPattern | undefined {
  if ([2, 3, 4].some((size) => repeats(chars, size))) return 'repeated-block';
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  if (chars.length > 0 && 2 * Math.max(...counts.values()) >= chars.length) return 'one-character';
  const pieces = pieceLengths(chars);
  return pieces.length <= 2 || pieces.every((n) => n >= 3) ? 'sequences' : undefined;
}
