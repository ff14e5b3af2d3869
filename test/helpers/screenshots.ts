/**
 * Full-page screenshots kept for review in `test/output/<folder>/` (not committed), and, with
 * `UPDATE_DOC_IMAGES=1`, the chosen ones copied to `docs/images/` for the documentation.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `UPDATE_DOC_IMAGES=1`: the screenshots named for the documentation replace those in docs/images/. */
export const UPDATE_DOC_IMAGES = process.env['UPDATE_DOC_IMAGES'] === '1';

export const DOC_IMAGES = join(ROOT, 'docs', 'images');

export interface Screenshots {
  /** The folder the screenshots are written to. */
  readonly dir: string;
  /** Writes `<name>.png` (the whole page); `doc`: also `docs/images/<doc>.png` under UPDATE_DOC_IMAGES. */
  take(page: Page, name: string, doc?: string): Promise<string>;
}

/** Screenshots into `test/output/<folder>/` (created; printed once). */
export function screenshots(folder: string): Screenshots {
  const dir = join(ROOT, 'test', 'output', folder);
  let announced = false;
  return {
    dir,
    async take(page, name, doc) {
      if (!announced) {
        mkdirSync(dir, { recursive: true });
        console.log(`  screenshots: ${dir}`);
        announced = true;
      }
      const path = join(dir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      if (doc !== undefined && UPDATE_DOC_IMAGES) {
        mkdirSync(DOC_IMAGES, { recursive: true });
        copyFileSync(path, join(DOC_IMAGES, `${doc}.png`));
      }
      return path;
    },
  };
}
