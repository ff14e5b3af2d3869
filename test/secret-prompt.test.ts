/** `npm run hash` without an argument: a prompt and no echo at a terminal, the first line of a pipe. */
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PromptCancelled, readSecret } from '../src/secret-prompt.ts';
import { onPath, skipSuite } from './helpers/skip.ts';
import { capture } from './helpers/capture.ts';

const t = suite('secret prompt');

/** A stream that says it is a terminal, and records the raw-mode changes asked of it. */
function fakeTerminal(): PassThrough & { isTTY: true; rawModes: boolean[]; setRawMode: (on: boolean) => void } {
  const rawModes: boolean[] = [];
  return Object.assign(new PassThrough(), {
    isTTY: true as const,
    rawModes,
    setRawMode(on: boolean) {
      rawModes.push(on);
    },
  });
}

t('at a terminal: the prompt, the line read in raw mode (nothing echoed), then the terminal as it was', async () => {
  const input = fakeTerminal();
  const prompt = capture();
  const secret = readSecret('Secret: ', { input, prompt: prompt.stream });
  input.write('s3cret words\r');
  assert.is(await secret, 's3cret words');
  assert.is(prompt.text(), 'Secret: \n', 'the prompt, then a new line for the Enter that was not echoed');
  assert.equal(input.rawModes, [true, false]);
});

t('at a terminal, Ctrl-C cancels and gives the terminal back', async () => {
  const input = fakeTerminal();
  const prompt = capture();
  const secret = readSecret('Secret: ', { input, prompt: prompt.stream });
  input.write('half\u0003');
  await secret.then(
    () => assert.unreachable('no secret after Ctrl-C'),
    (error: unknown) => assert.instance(error, PromptCancelled),
  );
  assert.equal(input.rawModes, [true, false]);
  assert.not.match(prompt.text(), /half/);
});

t('from a pipe: the first line as it is, and no prompt', async () => {
  const input = new PassThrough();
  const prompt = capture();
  input.end('piped secret\nsecond line\n');
  assert.is(await readSecret('Secret: ', { input, prompt: prompt.stream }), 'piped secret');
  assert.is(prompt.text(), '');
});

t.run();

const script = onPath('script'); // util-linux: runs a command on a pseudo-terminal
if (script === undefined) {
  skipSuite('npm run hash at a terminal', "no script(1) on PATH (util-linux's) to give it a terminal");
} else {
  const pty = suite('npm run hash at a terminal');

  pty('prompts on the terminal and hashes the secret typed, which is never shown', async () => {
    const child = spawn(script, ['-qec', `${process.execPath} scripts/hash.ts --cost 4`, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    let typed = false;
    child.stdin.on('error', () => {}); // EPIPE if the terminal is already gone: the assertions below tell
    const type = (): void => {
      if (typed) return;
      typed = true;
      child.stdin.write('correct horse battery staple\r');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Secret to hash (not echoed): ')) type();
    });
    const timer = setTimeout(type, 5000); // without a prompt, typed anyway: a terminal would echo it
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000); // its terminal closes: the command gets SIGHUP
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    clearTimeout(guard);
    assert.is(code, 0, out);
    assert.ok(out.startsWith('Secret to hash (not echoed): '), out);
    assert.not.match(out, /correct horse/, 'the secret is not echoed');
    const hash = /\$2b\$04\$\S{53}/.exec(out)?.[0] ?? '';
    assert.ok(bcrypt.compareSync('correct horse battery staple', hash), out);
  });

  pty.run();
}
