/**
 * The language a page is written in: the first of OIDC's `ui_locales` that has messages, else the
 * browser's `Accept-Language` by quality, else English.
 */

export const DEFAULT_LANGUAGE = 'en';

/** The available language `tag` stands for: the same tag, else its primary subtag (`fr-CH` → `fr`). */
function match(tag: string, available: ReadonlyMap<string, string>): string | undefined {
  const lower = tag.trim().toLowerCase();
  if (lower === '' || lower === '*') return undefined;
  return available.get(lower) ?? available.get(lower.split('-')[0] ?? '');
}

/** `fr-CH, fr;q=0.9, *;q=0.5` → the tags by falling quality (ties in the header's order), q=0 left out. */
export function byQuality(header: string): string[] {
  return header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      const quality = q === undefined ? 1 : Number(q);
      return { tag: tag.trim(), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((r) => r.tag !== '' && r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
    .map((r) => r.tag);
}

/**
 * The language of a page among `languages` (the messages files' names, `en` among them): the first
 * of `uiLocales` (space-separated) that has messages, else the best of `acceptLanguage`, else English.
 */
export function negotiate(languages: readonly string[], acceptLanguage: string, uiLocales?: string): string {
  const available = new Map(languages.map((l) => [l.toLowerCase(), l]));
  const wanted = [...(uiLocales ?? '').split(' '), ...byQuality(acceptLanguage)];
  for (const tag of wanted) {
    const found = match(tag, available);
    if (found !== undefined) return found;
  }
  return DEFAULT_LANGUAGE;
}
