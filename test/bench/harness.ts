/** Child processes of the bench: the real server, the bare baseline server, and the load generator. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startScriptArgs } from '../helpers/child.ts';
import { inspectorAddress } from '../helpers/inspector.ts';

const run = promisify(execFile);
const NODE = process.execPath;
const LOAD_WORKER = new URL('./load-worker.mjs', import.meta.url).pathname;
const BARE_SERVER = new URL('./bare-server.ts', import.meta.url).pathname;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether `expiresIn` is an honest count of a token's lifetime: at most `validity` seconds, and no
 * fewer than the whole seconds left to `exp` (seconds since the epoch) when the answer had arrived
 * (`answeredAt`, ms). A server may give the lifetime, or the time left at its answer floored (one
 * second less again for a token signed just before a second's boundary and answered just after).
 */
export const countsDown = (expiresIn: number, exp: number, validity: number, answeredAt: number): boolean =>
  Number.isInteger(expiresIn) && expiresIn <= validity && expiresIn >= Math.floor((exp * 1000 - answeredAt) / 1000);

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), `troupe-bench-${prefix}-`));

export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Resident set size of a process, in MiB, from /proc/<pid>/status. */
export function rssMiB(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) / 1024;
}

/**
 * CPU seconds (user + system) the process has used, all its threads included (SQLite, the BCrypt
 * pool, V8's helpers), from /proc/<pid>/stat.
 */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100/s)
}

/** Resident set size of a process and its children (a cluster's primary and workers), in MiB. */
export function treeRssMiB(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  return rssMiB(pid) + children.reduce((sum, child) => sum + treeRssMiB(child), 0);
}

export interface Child {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawn to the first 200 of the ready path. */
  readonly startMs: number;
  rss(): number;
  /** Its inspector's WebSocket address, when it was started with one ({@link StartOptions.inspect}). */
  inspector(): string | undefined;
  stop(): Promise<void>;
}

/** Polls `url` until it answers 200; fails when the process exits first or after `timeoutMs`. */
async function waitFor200(url: string, proc: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`process exited (${proc.exitCode ?? proc.signalCode}) before ${url} answered`);
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(20);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

async function startChild(
  args: readonly string[],
  env: Record<string, string>,
  readyPath: string,
  logFile: string,
  cwd?: string,
): Promise<Child> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const proc = spawn(NODE, [...args], {
    env: { ...baseEnv(), ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd === undefined ? {} : { cwd }),
  });
  const log = createWriteStream(logFile, { flags: 'a' });
  proc.stdout?.pipe(log);
  proc.stderr?.pipe(log);
  let errors = ''; // its first lines on stderr, where Node prints its inspector's address
  proc.stderr?.on('data', (chunk: Buffer) => {
    if (errors.length < 4096) errors += chunk.toString();
  });
  await waitFor200(url + readyPath, proc);
  const startMs = performance.now() - started;
  const pid = proc.pid ?? 0;
  return {
    url,
    pid,
    startMs,
    rss: () => treeRssMiB(pid),
    inspector: () => inspectorAddress(errors),
    stop: () => stopProcess(proc),
  };
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null)
    throw new Error(`server had already exited (${proc.exitCode ?? proc.signalCode})`);
  const exited = once(proc, 'exit');
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** The parent's environment without anything that would change the server's configuration. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v !== undefined &&
      k !== 'NODE_ENV' &&
      k !== 'MONGODB_URI' &&
      !/^(SERVER|SECURITY|APP|DATA|MONGODB|ACTORS|MANAGEMENT|LOGGING|SERVICES|OTEL)_/.test(k)
    )
      env[k] = v;
  }
  return env;
}

/** How a server is started: `npm start`'s node command (the default), or another tree's (`root`). */
export interface StartOptions {
  /** The source tree to run (default: this one); its node_modules must resolve. */
  readonly root?: string;
  /** Node's arguments before `src/main.ts` (default: `npm start`'s `--import` of the tracing register file). */
  readonly nodeArgs?: readonly string[];
  /** With Node's inspector on a free loopback port: the bench can then read what the server retains. */
  readonly inspect?: boolean;
}

const npmStart = startScriptArgs();

/**
 * `npm start`'s heap flags, read from its script: every argument before its first `--import` (a
 * fixed young generation, no pretenuring; docs/operations.md says why).
 */
export const HEAP_ARGS: readonly string[] = npmStart.slice(0, Math.max(0, npmStart.indexOf('--import')));

/** `npm start`'s node arguments before `src/main.ts`: its heap flags and its tracing register file. */
export const START_ARGS: readonly string[] = [...HEAP_ARGS, '--import', './src/telemetry/register.ts'];

/** `npm start`'s node command on loopback with its own data directory and an empty properties file. */
export async function startTroupe(
  dataDir: string,
  settings: Record<string, string> = {},
  options: StartOptions = {},
): Promise<Child> {
  const configFile = join(dataDir, 'bench.properties');
  writeFileSync(configFile, '');
  const env = {
    DATA_DIR: dataDir,
    CONFIG_FILE: configFile,
    LOGGING_LEVEL: 'warn',
    SERVER_HOST: '127.0.0.1',
    SECURITY_LOGIN_THROTTLE_MAX_FAILURES_PER_USER: '1000000',
    SECURITY_LOGIN_THROTTLE_MAX_FAILURES_PER_ADDRESS: '1000000',
    // The bench logs john.doe in thousands of times; past the per-account bound each login would
    // end the oldest, the probes' own among them, and their requests would all be 401.
    SECURITY_JWT_MAX_LOGINS_PER_USER: '100000',
    ...settings,
  };
  const args = [
    ...(options.inspect ? ['--inspect=127.0.0.1:0'] : []),
    ...(options.nodeArgs ?? START_ARGS),
    'src/main.ts',
  ];
  return startChild(args, env, '/ready', join(dataDir, 'server.log'), options.root);
}

export async function startBare(dbFile: string, logDir: string, env: Record<string, string> = {}): Promise<Child> {
  return startChild([BARE_SERVER], { DB_FILE: dbFile, ...env }, '/app/listAll', join(logDir, 'bare.log'));
}

export interface LoadSpec {
  readonly url: string;
  readonly path: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly connections?: number;
  /** Seconds; ignored when `amount` is set. */
  readonly duration?: number;
  readonly amount?: number;
  /**
   * Milliseconds between autocannon's samples (default 1000). A run of `amount` requests ends at
   * the first sample after its last answer, so its duration is counted in these steps.
   */
  readonly sampleMs?: number;
  /** Requests per second from all connections; unset → as fast as the server answers. */
  readonly overallRate?: number;
  readonly idReplacement?: boolean;
  /** One path (or body) per line, used in turn. */
  readonly linesFile?: string;
  readonly linesAs?: 'path' | 'body';
}

export interface LoadResult {
  readonly total: number;
  readonly seconds: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  /** Milliseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly rps: number;
}

/** One autocannon run in a separate process. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  const { stdout } = await run(NODE, [LOAD_WORKER, JSON.stringify(spec)], { maxBuffer: 1 << 20, timeout: 600_000 });
  const r = JSON.parse(stdout) as Omit<LoadResult, 'rps'>;
  return { ...r, rps: r.total / Math.max(r.seconds, 1e-9) };
}

/** A server's best in interleaved rounds. */
export interface BestRound {
  readonly r: LoadResult;
  readonly rss: number;
  /** The fewest CPU microseconds the server spent per request in any round. */
  readonly cpuUs: number;
}

/** One server of an interleaved measurement: its key in the result, its name in the log, what to send it. */
export interface Contender<K> {
  readonly key: K;
  readonly label: string;
  readonly child: Child;
  readonly spec: LoadSpec;
}

/**
 * After a warm-up of each, `rounds` rounds in which every contender is measured in turn, so a
 * slow moment of the machine hits them alike. Keeps each one's most req/s and its fewest CPU µs
 * per request (user + system time of its server process, every thread), which a busy machine
 * disturbs much less than req/s.
 */
export async function interleaved<K>(
  contenders: readonly Contender<K>[],
  rounds: number,
  log: (line: string) => void,
): Promise<Map<K, BestRound>> {
  for (const c of contenders) await warmUp(c.spec);
  const best = new Map<K, BestRound>();
  for (let round = 1; round <= rounds; round++) {
    for (const c of contenders) {
      const before = cpuSeconds(c.child.pid);
      const r = await load(c.spec);
      const cpuUs = ((cpuSeconds(c.child.pid) - before) * 1e6) / Math.max(1, r.total);
      log(`  ${c.label} round ${round}: ${r.rps.toFixed(0)} req/s, ${cpuUs.toFixed(1)} CPU µs/request`);
      const prev = best.get(c.key);
      best.set(c.key, {
        r: !prev || r.rps > prev.r.rps ? r : prev.r,
        rss: c.child.rss(),
        cpuUs: Math.min(prev?.cpuUs ?? Infinity, cpuUs),
      });
    }
  }
  return best;
}

/** A short run whose figures are thrown away: JIT, caches and connection set-up. */
export async function warmUp(spec: LoadSpec, seconds = 2): Promise<void> {
  const { amount: _amount, ...rest } = spec;
  await load({ ...rest, duration: seconds });
}
