/**
 * What the sign-in pages are made of once `security.sign-in.*` is read: the pages, the stylesheet
 * with the primary colour, and the logo. Built once at start-up; a file that cannot be read or
 * parsed stops the start ({@link ConfigError} naming it).
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { ConfigError } from '../../../src/config.ts';
import type { Pages } from '../page-views.ts';
import { normalHex, textOn } from './contrast.ts';
import { loadTheme } from './theme.ts';
import { themedPages } from './themed-pages.ts';

/** The `security.sign-in.*` keys as the configuration gives them. */
export interface SignInSettings {
  readonly productName: string;
  /** A PNG, SVG, JPEG or WebP file. */
  readonly logo?: string | undefined;
  /** `#rgb` or `#rrggbb` (the configuration checked it). */
  readonly primaryColor: string;
  readonly supportUrl?: string | undefined;
  /** A folder whose files replace the default theme's. */
  readonly theme?: string | undefined;
}

export interface Logo {
  readonly body: Buffer;
  readonly type: string;
}

export interface SignInSite {
  readonly pages: Pages;
  /** The theme's stylesheet, after the custom properties of the configured colours. */
  readonly stylesheet: string;
  readonly logo: Logo | undefined;
}

export const LOGO_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

function readLogo(path: string): Logo {
  const type = LOGO_TYPES[extname(path).toLowerCase()];
  if (type === undefined)
    throw new ConfigError(
      `Invalid configuration: security.sign-in.logo: ${path} is not a .png, .svg, .jpg, .jpeg or .webp file`,
    );
  try {
    return { body: readFileSync(path), type };
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: security.sign-in.logo: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** The colours as CSS custom properties: the primary one, and the text on it (white or near-black, by contrast). */
export function colorProperties(primaryColor: string): string {
  const primary = normalHex(primaryColor);
  return `:root {\n  --primary: ${primary};\n  --on-primary: ${textOn(primary)};\n}\n`;
}

export function loadSignInSite(settings: SignInSettings): SignInSite {
  const theme = loadTheme(settings.theme);
  const logo = settings.logo === undefined ? undefined : readLogo(settings.logo);
  return {
    pages: themedPages(theme, {
      productName: settings.productName,
      logo: logo !== undefined,
      supportUrl: settings.supportUrl,
    }),
    stylesheet: colorProperties(settings.primaryColor) + theme.stylesheet,
    logo,
  };
}
