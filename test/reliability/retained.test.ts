// How the memory suites weigh a process: what it retains after full collections, not a sample
// that also holds garbage; and a figure over its bound fails saying so.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectBelow } from '../helpers/bounds.ts';
import { connectInspector, inspectorAddress } from '../helpers/inspector.ts';
import { waitFor } from '../helpers/wait.ts';

const MIB = 1024 * 1024;

// 32 MiB kept and 64 MiB let go, in arrays of 1 MiB (V8's large-object space, which only a full
// collection empties), then idle.
const PROCESS = `
const mib = () => new Array(131072).fill(Math.random());
globalThis.kept = Array.from({ length: 32 }, mib);
let dropped = Array.from({ length: 64 }, mib);
dropped = undefined;
console.log('ready');
setInterval(() => {}, 1000);
`;

const t = suite('memory figures');

t('what a process retains is counted after full collections; its garbage is not', async () => {
  const child = spawn(process.execPath, ['--inspect=127.0.0.1:0', '-e', PROCESS], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let errors = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    const [ready] = (await once(child.stdout, 'data')) as [Buffer];
    assert.is(ready.toString().trim(), 'ready');
    await waitFor(() => inspectorAddress(errors) !== undefined, "the inspector's address", 5000, 20);
    const inspector = await connectInspector(inspectorAddress(errors) ?? '');
    try {
      const { heapUsed, rss } = await inspector.memoryAfterCollection();
      assert.ok(heapUsed > 32 * MIB, `the 32 MiB kept are counted (heap in use ${(heapUsed / MIB).toFixed(1)} MiB)`);
      expectBelow(heapUsed / MIB, 48, 'the heap in use with 32 MiB kept and 64 MiB let go');
      assert.ok(rss >= heapUsed, 'the resident set is read too');
    } finally {
      inspector.close();
    }
  } finally {
    child.kill('SIGKILL');
  }
});

t('a figure over its bound fails with the figure and the bound, not a trailing "(ok)"', () => {
  expectBelow(63.9, 64, 'a figure under its bound');
  let failure: unknown;
  try {
    expectBelow(141.8, 64, "the resident set's growth after the warm-up");
  } catch (error) {
    failure = error;
  }
  assert.instance(failure, assert.Assertion, 'a figure over its bound fails as an assertion: uvu counts it failed');
  const { message, operator } = failure as assert.Assertion;
  assert.is(message, "the resident set's growth after the warm-up is 141.8 MiB: over its bound of 64 MiB");
  assert.is(operator, '', 'uvu adds no "(operator)" after the message');
});

t.run();
