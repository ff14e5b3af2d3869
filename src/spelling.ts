/** The nearest of several names to one mistyped: what a refusal of an unknown key suggests instead. */

/** Edit distance between two short strings (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The known name nearest to `unknown` in spelling, if any is within `within` edits. */
export function closestName(unknown: string, known: readonly string[], within = Infinity): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(unknown, name);
    if (d <= within && (best === undefined || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** A name near enough to be a typo of `unknown`: a third of its letters wrong at most (two for a short one). */
export const typoOf = (unknown: string, known: readonly string[]): string | undefined =>
  closestName(unknown, known, Math.max(2, Math.floor(unknown.length / 3)));
