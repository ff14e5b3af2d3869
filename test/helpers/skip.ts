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

/** Registers the suite `name` as one skipped test and prints `reason` (uvu itself prints only a count). */
export function skipSuite(name: string, reason: string): void {
  process.stdout.write(`  skipped: ${name}: ${reason}\n`);
  const s = suite(name);
  s.skip(reason, () => {});
  s.run();
}
