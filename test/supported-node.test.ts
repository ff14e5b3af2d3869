/**
 * The Node troupe runs on: the npm scripts run on the Node the `node` dependency installs, and an
 * entry point started directly on an unsupported Node refuses in one line naming what to install.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { refusal } from '../src/supported-node.mjs';

type Manifest = {
  engines: { node: string };
  dependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
  scripts: Record<string, string>;
};
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Manifest;
const pinned = manifest.dependencies['node'] ?? '';

/** The arguments after `node` in an npm script such as `exec node --import … src/main.ts`. */
function nodeArgs(script: string): string[] {
  const words = script.split(/\s+/).filter(Boolean);
  return words.slice(words.indexOf('node') + 1);
}

/** Runs `node` with `args` as if it were Node `version`: a first preload rewrites process.version. */
function runAs(version: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const fake = `data:text/javascript,${encodeURIComponent(`Object.defineProperty(process, 'version', { value: '${version}' });`)}`;
  const result = spawnSync(process.execPath, ['--import', fake, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const t = suite('supported Node');

t('the pinned Node is exact, supported, allowed its install script, and named by .nvmrc and .node-version', () => {
  assert.match(pinned, /^\d+\.\d+\.\d+$/);
  assert.is(refusal(`v${pinned}`), undefined);
  assert.is(manifest.allowScripts['node'], true, 'the node package installs the runtime from its preinstall script');
  assert.is(readFileSync('.nvmrc', 'utf8').trim(), pinned);
  assert.is(readFileSync('.node-version', 'utf8').trim(), pinned);
});

t('.npmrc: an old Node installs, and npm prints its errors, not the EBADENGINE warnings that judge it', () => {
  const settings = readFileSync('.npmrc', 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'));
  assert.equal(settings, ['engine-strict=false', 'loglevel=error']);
});

t('.ci/run tests the pinned line, and an old Node installing and starting the project', () => {
  const ci = readFileSync('.ci/run', 'utf8');
  const lines = /^NODE_LINES=\(([^)]*)\)/m.exec(ci)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
  assert.ok(lines.includes(pinned), `NODE_LINES (${lines.join(' ')}) lacks the pinned ${pinned}`);
  for (const line of lines) assert.is(refusal(`v${line}`), undefined, `${line} is tested but not supported`);
  const old = /^OLD_NODE=(\S+)/m.exec(ci)?.[1] ?? '';
  assert.ok(old !== '' && refusal(`v${old}.0.0`) !== undefined, `OLD_NODE (${old}) is an unsupported line`);
});

t('the supported lines run; any other Node is refused in one line naming the Node to install', () => {
  for (const version of ['v22.18.0', 'v24.0.0', 'v24.21.0', 'v26.10.0'])
    assert.is(refusal(version), undefined, version);
  for (const version of ['v18.20.8', 'v20.20.2', 'v22.17.1', 'v23.11.0', 'v25.2.1', 'v27.0.0']) {
    const line = refusal(version) ?? '';
    assert.ok(line.includes(version) && line.includes(`install Node ${pinned}`), line);
    assert.not.match(line, /\n/);
  }
});

t('npm start, npm run dev and npm run repl check the Node first, before any .ts is loaded', () => {
  for (const name of ['start', 'dev', 'repl']) {
    // Flags that only tune the heap (npm start's young generation, no pretenuring) change nothing of what loads first.
    const args = nodeArgs(manifest.scripts[name] ?? '').filter(
      (arg) =>
        arg !== '--watch' && !/^--(min|max)-semi-space-size=/.test(arg) && arg !== '--no-allocation-site-pretenuring',
    );
    assert.equal(args.slice(0, 2), ['--import', './src/supported-node.mjs'], `${name}: ${manifest.scripts[name]}`);
  }
  const started = runAs('v20.20.2', nodeArgs(manifest.scripts['start'] ?? ''));
  assert.is(started.status, 1);
  assert.is(started.stdout, '');
  assert.is(started.stderr, `${refusal('v20.20.2', ['src/main.ts'])}\n`);
});

t('node scripts/test.mjs and node src/main.ts on an unsupported Node print the one line and exit 1', () => {
  for (const args of [['scripts/test.mjs', 'nothing-matches-this'], ['src/main.ts'], ['src/repl.ts']]) {
    const run = runAs('v23.11.0', args);
    assert.is(run.status, 1, args.join(' '));
    assert.is(run.stderr, `${refusal('v23.11.0', args)}\n`, args.join(' '));
  }
});

t('the refusal names the same command on the Node npm installed, which runs it', () => {
  const line = refusal('v20.20.2', ['dist/src/main.js', '--server.port=9090', "it's"]) ?? '';
  assert.ok(line.includes("node_modules/.bin/node dist/src/main.js --server.port=9090 'it'\\''s'"), line);
  assert.ok(line.includes('npm exec -- node'), line);
  // The pinned Node after `npm install`; CI points the link at each supported line in turn.
  const installed = spawnSync('node_modules/.bin/node', ['--version'], { encoding: 'utf8' });
  assert.match(installed.stdout.trim(), /^v\d+\.\d+\.\d+$/, 'node_modules/.bin/node runs');
  assert.is(
    refusal(installed.stdout.trim()),
    undefined,
    `node_modules/.bin/node (${installed.stdout.trim()}) is supported`,
  );
});

t.run();
