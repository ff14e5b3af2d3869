/**
 * Spellings of a path that some router, proxy or URL parser might take for the same resource:
 * other letter cases of each segment, a trailing slash, doubled slashes, percent-encoded letters
 * and slashes, dot segments. The path itself is not among them.
 */

const swapFirst = (s: string): string => {
  const first = s.charAt(0);
  const swapped = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase();
  return swapped + s.slice(1);
};

const hex = (c: string, upper: boolean): string => {
  const h = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${upper ? h.toUpperCase() : h}`;
};

/** Each segment in turn rewritten by `f`, the others left as they are. */
function eachSegment(segments: readonly string[], f: (s: string) => string): string[] {
  return segments.map((_, i) => `/${segments.map((s, j) => (i === j ? f(s) : s)).join('/')}`);
}

export function spellings(path: string): string[] {
  const segments = path.split('/').slice(1);
  const last = segments.length - 1;
  const head = `/${segments.slice(0, last).join('/')}`;
  const out = new Set<string>([
    path.toUpperCase(),
    path.toLowerCase(),
    ...eachSegment(segments, (s) => s.toUpperCase()),
    ...eachSegment(segments, swapFirst),
    `${path}/`,
    `/${path}`,
    path.replaceAll('/', '//'),
    `${path}//`,
    ...eachSegment(segments, (s) => hex(s.charAt(0), false) + s.slice(1)),
    ...eachSegment(segments, (s) => hex(s.charAt(0), true) + s.slice(1)),
    ...eachSegment(segments, (s) => hex(s.charAt(0).toUpperCase(), true) + s.slice(1)),
    `/${segments.map((s) => [...s].map((c) => hex(c, false)).join('')).join('/')}`,
    last > 0 ? `${head}%2F${segments[last] ?? ''}` : `/%2F${segments[0] ?? ''}`,
    `/.${path}`,
    `${path}/.`,
    `/x/..${path}`,
    `${head}/./${segments[last] ?? ''}`,
    `${head}/x/../${segments[last] ?? ''}`,
    `${head}/%2e/${segments[last] ?? ''}`,
    `${head}/x/%2e%2e/${segments[last] ?? ''}`,
    `${path};`,
    `${path}%00`,
    `${path}%20`,
  ]);
  out.delete(path);
  return [...out];
}
