/**
 * Suites that need something outside the project (a MongoDB server, a browser): where to find a
 * program, and how a suite that cannot run says why and counts as skipped.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

/** The executable `binary` in one of `path`'s directories, or undefined. */
export function onPath(binary: string, path = process.env['PATH'] ?? ''): string | undefined {
  for (const dir of path.split(':').filter(Boolean)) {
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return join(dir, binary);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** How a skipped suite's line begins; `scripts/test.mjs` counts the lines that begin so. */
const SKIPPED_MARK = '  skipped: ';

/**
 * Reports the suite `name` as skipped and why. uvu has no notion of a skipped suite with a reason,
 * so nothing is registered with it: `scripts/test.mjs` counts these lines into its `N skipped`.
 */
export function skipSuite(name: string, reason: string): void {
  process.stdout.write(`${SKIPPED_MARK}${name}: ${reason}\n`);
}
