/**
 * The browser that the browser suites drive: `CHROME_PATH`, or Debian's `chromium` on PATH.
 * Without one such a suite is skipped with the reason; under `CI=true` it fails instead, so that
 * CI cannot pass without having run it.
 */
import { onPath } from './skip.ts';

export const CHROMIUM_PATH: string | undefined = process.env['CHROME_PATH'] || onPath('chromium');

export const CHROMIUM_MISSING =
  'no chromium: install it (apt-get install chromium) or set CHROME_PATH to a Chromium or Chrome binary';

/** Under CI a missing browser is a failure, not a skip. */
export const BROWSER_REQUIRED = process.env['CI'] === 'true';
