// Refuses, in one line, a Node that cannot run troupe, before any TypeScript is loaded: imported
// first by the entry points (`npm start`, `npm run dev`, `npm run repl`, `node scripts/test.mjs`,
// the compiled `dist/src/main.js`), and plain JavaScript so that Node 20 and older still run it.
// The npm scripts run on the Node that the `node` dependency installs, so this speaks to whoever
// runs `node` directly on another one.
import { readFileSync } from 'node:fs';
import satisfies from 'semver/functions/satisfies.js';

/** @type {{ engines: { node: string }, dependencies: { node: string } }} */
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * The refusal for a Node `version` (as `process.version` gives it) outside `package.json`'s
 * `engines.node`, or undefined when troupe runs on it.
 * @param {string} version
 * @returns {string | undefined}
 */
export function refusal(version) {
  const range = manifest.engines.node;
  if (satisfies(version, range)) return undefined;
  const pinned = manifest.dependencies.node;
  return (
    `troupe needs Node ${range}, not ${version}: install Node ${pinned} (.nvmrc), ` +
    `or run it through npm (npm install, then npm start or npm test), which uses the Node ${pinned} it installs`
  );
}

const line = refusal(process.version);
if (line !== undefined) {
  console.error(line);
  process.exit(1);
}
