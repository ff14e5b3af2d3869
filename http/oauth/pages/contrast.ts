/**
 * Colour arithmetic for the pages' primary colour: the text on a primary button is white or
 * near-black, whichever contrasts more (WCAG 2.2, 1.4.3: relative luminance and contrast ratio).
 */

/** `#rgb` or `#rrggbb`, any case. */
export const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

export const WHITE = '#ffffff';
export const NEAR_BLACK = '#111111';
const BLACK = '#000000';
/** WCAG AA for normal-sized text. */
const AA_TEXT = 4.5;

/** `#abc` → `#aabbcc`, lower case; throws on anything but a hex colour. */
export function normalHex(color: string): string {
  if (!HEX_COLOR.test(color)) throw new RangeError(`not a hex colour: ${color}`);
  const digits = color.slice(1).toLowerCase();
  return `#${digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits}`;
}

/** WCAG's relative luminance of an sRGB colour, 0 (black) to 1 (white). */
export function luminance(color: string): number {
  const hex = normalHex(color);
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG's contrast ratio of two colours, 1 to 21. */
export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * The text colour for a background: white or near-black, whichever contrasts more. For the few
 * mid tones where neither reaches AA, black, which always does (at least 4.58:1).
 */
export function textOn(background: string): string {
  const best = contrast(WHITE, background) >= contrast(NEAR_BLACK, background) ? WHITE : NEAR_BLACK;
  return contrast(best, background) >= AA_TEXT ? best : BLACK;
}
