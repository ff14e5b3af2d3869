/** The server in a child process as an operator runs it: `npm start`'s node command, or `npm start` itself. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { connectInspector, inspectorAddress, type Inspector } from './inspector.ts';
import { waitFor } from './wait.ts';

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

/** `npm start`'s node arguments, read from package.json's script (`exec node …`). */
export function startScriptArgs(): readonly string[] {
  const manifest = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const { scripts } = JSON.parse(manifest) as { scripts: Record<string, string> };
  const args = /^exec node (.+)$/.exec(scripts['start'] ?? '')?.[1];
  if (args === undefined) throw new Error(`package.json: the start script is not "exec node …": ${scripts['start']}`);
  return args.split(' ');
}

/**
 * Starts the server on a free port with `dataDir`; resolves once it listens. `entry` is node's
 * arguments (default: `npm start`'s; the build test passes the compiled `main.js`).
 */
export function startChildServer(
  dataDir: string,
  env: Record<string, string> = {},
  entry: readonly string[] = startScriptArgs(),
): Promise<ChildServer> {
  return launch(process.execPath, entry, { PORT: '0', DATA_DIR: dataDir, ...env }, false);
}

/**
 * {@link startChildServer} with Node's inspector on a free loopback port, connected: the test can
 * read what the server retains after full collections. The inspector's banner is kept off stderr.
 */
export async function startInspectedServer(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ChildServer & { readonly inspector: Inspector }> {
  const entry = ['--inspect=127.0.0.1:0', ...startScriptArgs()];
  const server = await launch(process.execPath, entry, { PORT: '0', DATA_DIR: dataDir, ...env }, false, true);
  // Printed at start-up on stderr, which may arrive after the listening line on stdout.
  await waitFor(() => inspectorAddress(server.errors()) !== undefined, "the inspector's address", 5000, 20).catch(
    async (error: unknown) => {
      await server.kill();
      throw error;
    },
  );
  const inspector = await connectInspector(inspectorAddress(server.errors()) ?? '');
  return {
    ...server,
    inspector,
    async kill() {
      inspector.close();
      await server.kill();
    },
  };
}

/**
 * `npm start` itself, leader of a process group of its own as under a terminal or a process
 * manager: `pid` is npm's, `kill()` ends the whole group. Set `PORT` in `env` (0 works too).
 */
export function startNpmStart(dataDir: string, env: Record<string, string>): Promise<ChildServer> {
  return launch('npm', ['start'], { DATA_DIR: dataDir, ...env }, true);
}

async function launch(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  group: boolean,
  inspected = false,
): Promise<ChildServer & { errors(): string }> {
  const child = spawn(command, [...args], {
    stdio: ['ignore', 'pipe', inspected ? 'pipe' : 'inherit'],
    detached: group,
    env: { ...process.env, CONFIG_FILE: '/dev/null', LOGGING_LEVEL: 'info', ...env },
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  // Its log lines join the run's log, which the last suite audits for secrets (zz-log-audit.test.ts).
  const runLogPath = process.env['TROUPE_TEST_LOG'];
  const runLog = runLogPath === undefined ? undefined : createWriteStream(runLogPath, { flags: 'a' });
  child.stdout?.once('close', () => runLog?.end());
  const kill = (): void => {
    try {
      if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {
      // already gone
    }
  };
  let out = '';
  // An inspected server's stderr passes through, but for the inspector's own lines (its address, attach, end).
  let errors = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    errors += chunk;
    const shown = chunk.replace(
      /^(Debugger (listening on|attached|ending on)|For help, see: https:\/\/nodejs\.org).*\n/gm,
      '',
    );
    if (shown !== '') process.stderr.write(shown);
  });
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
    child,
    url,
    pid: child.pid ?? -1,
    exited,
    async kill() {
      kill();
      await exited;
    },
    output: () => out,
    errors: () => errors,
  };
}

/** The resident set size of a process, in bytes (Linux: /proc/PID/status). */
export function rssOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}
