/**
 * Suites that need something outside the project (a MongoDB server, a browser): where to find a
 * program, and how a suite that cannot run says why and counts as skipped.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';

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

/** What a skipped suite prints after its name; `scripts/test.mjs` counts the lines that carry it. */
const SKIPPED_MARK = 'skipped: ';

/**
 * Reports the suite `name` as skipped and why, in its place under its file: uvu has no notion of a
 * skipped suite with a reason, so a suite of no tests is run whose line reads ` NAME  skipped:
 * REASON  (0 / 0)`; `scripts/test.mjs` counts these into its `N skipped`.
 */
export function skipSuite(name: string, reason: string): void {
  const s = suite(name);
  s.before(() => {
    process.stdout.write(`${SKIPPED_MARK}${reason}`);
  });
  s.run();
}

/** How a note begins; `scripts/test.mjs` holds each until the row of dots it arrived in ends. */
const NOTE_MARK = '  note: ';

/**
 * Prints one line of what a test measured (a load window, say), which may come in the middle of its
 * suite's row of dots: `scripts/test.mjs` prints it on its own line, after that row.
 */
export function note(text: string): void {
  process.stdout.write(`${NOTE_MARK}${text}\n`);
}
