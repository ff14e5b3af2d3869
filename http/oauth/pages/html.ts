/** HTML escaping of text and attribute values, for every page of the authorization endpoint. */
const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `&<>"'` as entities (mustache's own escaping also turns `/` and `=` into entities). */
export const escapeHtml = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
