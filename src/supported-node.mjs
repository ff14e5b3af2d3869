// Refuses, in one line, a Node that cannot run troupe, before any TypeScript is loaded: imported
// first by the entry points (`npm start`, `npm run dev`, `npm run repl`, `node scripts/test.mjs`,
// the compiled `dist/src/main.js`), and plain JavaScript so that Node 20 and older still run it.
// The npm scripts run on the Node that the `node` dependency installs, so this speaks to whoever
// runs `node` directly on another one.
import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import satisfies from 'semver/functions/satisfies.js';

/** @type {{ engines: { node: string }, dependencies: { node: string } }} */
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** An argument as a shell takes it back: quoted unless it is plain. */
const shellWord = (/** @type {string} */ word) =>
  /^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;

/**
 * The refusal for a Node `version` (as `process.version` gives it) outside `package.json`'s
 * `engines.node`, or undefined when troupe runs on it. `command`, the arguments after `node` as
 * typed, is named back run on the Node npm installed, which works where this one is refused.
 * @param {string} version
 * @param {readonly string[]} [command]
 * @returns {string | undefined}
 */
export function refusal(version, command) {
  const range = manifest.engines.node;
  if (satisfies(version, range)) return undefined;
  const pinned = manifest.dependencies.node;
  const direct =
    command === undefined || command.length === 0 ? '' : `node_modules/.bin/node ${command.map(shellWord).join(' ')}, `;
  return (
    `troupe needs Node ${range}, not ${version}: run it on the Node ${pinned} that npm installs ` +
    `(npm install, then npm start, npm test, ${direct}or npm exec -- node …), or install Node ${pinned} (.nvmrc)`
  );
}

/** What was typed after `node`: the entry point (relative to here when inside) and its arguments. */
function typed() {
  const [, entry, ...args] = process.argv;
  if (entry === undefined) return [];
  const here = relative(process.cwd(), entry);
  return [here.startsWith('..') || isAbsolute(here) ? entry : here, ...args];
}

const line = refusal(process.version, typed());
if (line !== undefined) {
  console.error(line);
  process.exit(1);
}
