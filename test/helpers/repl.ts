/** `npm run repl`'s entry point in a child process, driven line by line through its stdin. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { PROMPT } from '../../src/repl/session.ts';

export interface ReplChild {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything printed on stdout so far. */
  output(): string;
  stderr(): string;
  /** Types one line; resolves with what the REPL printed in answer, up to its next prompt (excluded). */
  type(line: string): Promise<string>;
  /** Resolves once the output printed from `from` on matches `pattern`. */
  waitForOutput(pattern: RegExp, from?: number): Promise<string>;
  /** Resolves with the exit code (null after a signal); kills the child and rejects if it does not exit in time. */
  exited(timeoutMs?: number): Promise<number | null>;
}

/** Starts the REPL (plain lines: stdin and stdout are pipes) and resolves at its first prompt. */
export async function startReplChild(env: Record<string, string>, args: readonly string[] = []): Promise<ReplChild> {
  const child = spawn(process.execPath, ['src/repl.ts', ...args], {
    env: { ...process.env, CONFIG_FILE: '/dev/null', NODE_NO_READLINE: '1', LOGGING_LEVEL: 'warn', ...env },
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const check of [...waiters]) check();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

  /** Resolves with `done()`'s first defined value; rejects when the REPL exits or prints nothing fitting for 15 s. */
  const until = (done: () => string | undefined): Promise<string> =>
    new Promise((resolve, reject) => {
      const fail = (why: string): void => {
        if (waiters.delete(check)) reject(new Error(`${why}; stdout:\n${out}\nstderr:\n${err}`));
      };
      const timer = setTimeout(() => fail('the REPL printed nothing expected within 15 s'), 15_000);
      function check(): void {
        const value = done();
        if (value === undefined) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(value);
      }
      waiters.add(check);
      exit.then(() => fail('the REPL exited'), reject);
      check();
    });
  const promptAfter = (from: number) => (): string | undefined =>
    out.length > from && out.endsWith(PROMPT) ? out.slice(from, -PROMPT.length) : undefined;

  await until(promptAfter(0));
  return {
    child,
    output: () => out,
    stderr: () => err,
    type(line) {
      const from = out.length;
      child.stdin.write(`${line}\n`);
      return until(promptAfter(from));
    },
    waitForOutput: (pattern, from = 0) => until(() => (pattern.test(out.slice(from)) ? out.slice(from) : undefined)),
    async exited(timeoutMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the REPL did not exit within ${timeoutMs} ms`));
        }, timeoutMs);
      });
      try {
        return (await Promise.race([exit, late]))[0];
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
