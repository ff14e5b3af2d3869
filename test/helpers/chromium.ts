/**
 * The browser that the browser suites drive: `CHROME_PATH`, or Debian's `chromium` on PATH.
 * Without one such a suite is skipped with the reason; under `CI=true` it fails instead, so that
 * CI cannot pass without having run it.
 */
import { chromium, type Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { onPath } from './skip.ts';

export const CHROMIUM_PATH: string | undefined = process.env['CHROME_PATH'] || onPath('chromium');

export const CHROMIUM_MISSING =
  'no chromium: install it (apt-get install chromium) or set CHROME_PATH to a Chromium or Chrome binary';

/** Under CI a missing browser is a failure, not a skip. */
export const BROWSER_REQUIRED = process.env['CI'] === 'true';

/** Headless, and quiet: no network of its own beside the pages a suite opens. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Starts the browser; fails the test (rather than skipping) when there is none to start. */
export function launchChromium(): Promise<Browser> {
  assert.ok(CHROMIUM_PATH, `${CHROMIUM_MISSING} (CI=true: a missing browser fails the run)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS });
}
