/** `npm start`'s entry point (`src/main.ts`) in a child process, as an operator would run it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';

export interface ChildServer {
  readonly child: ChildProcess;
  readonly url: string;
  readonly pid: number;
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  /** SIGKILL: no shutdown hook runs, as on a crash or an OOM kill. */
  kill(): Promise<void>;
  /** What it printed on stdout so far (its log lines; the last megabyte at most). */
  output(): string;
}

/** `npm start`'s command line: the TypeScript entry point through tsx. */
const SOURCE_ENTRY = ['--import', 'tsx', 'src/main.ts'];

/**
 * Starts the server on a free port with `dataDir`; resolves once it listens. `entry` is node's
 * arguments (default: `src/main.ts` through tsx; the build test passes the compiled `main.js`).
 */
export async function startChildServer(dataDir: string, env: Record<string, string> = {}, entry: readonly string[] = SOURCE_ENTRY): Promise<ChildServer> {
  const child = spawn(process.execPath, [...entry], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, CONFIG_FILE: '/dev/null', LOGGING_LEVEL: 'info', ...env },
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  // Its log lines join the run's log, which the last suite audits for secrets (zz-log-audit.test.ts).
  const runLogPath = process.env['TROUPE_TEST_LOG'];
  const runLog = runLogPath === undefined ? undefined : createWriteStream(runLogPath, { flags: 'a' });
  void exited.then(() => runLog?.end());
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    // Keep reading stdout for the child's whole life: a full pipe would block its logging.
    child.stdout?.on('data', (chunk: Buffer) => {
      runLog?.write(chunk);
      out += chunk.toString();
      const m = /"url":"(http:\/\/[^"]+)".*"msg":"troupe listening"/.exec(out);
      if (m?.[1]) resolve(m[1]);
      if (out.length > 1_000_000) out = out.slice(-10_000);
    });
    void exited.then(([code]) => reject(new Error(`the server exited before listening (code ${code})`)));
  });
  return {
    child, url, pid: child.pid ?? -1, exited,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    output: () => out,
  };
}

/** The resident set size of a process, in bytes (Linux: /proc/PID/status). */
export function rssOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}
