/** Several real troupe processes on one data directory, as an operator would run them. */
import { rmSync } from 'node:fs';
import { suite, type Test } from 'uvu';
import { startChildServer, type ChildServer } from './child.ts';
import { tempDir } from './server.ts';
import { basic, bearer, login, USERS } from './tokens.ts';

/** What every instance of one service must share besides the data (the key is the generated one there). */
export const SHARED = { SECURITY_JWT_ISSUER: 'http://troupe.test' };

export interface Instances {
  readonly dataDir: string;
  readonly servers: readonly ChildServer[];
  /** SIGTERM to every process, then the data directory is removed. */
  close(): Promise<void>;
}

/**
 * Starts `count` processes all at once (their start-ups race, as they may), on one fresh data
 * directory, or with `separateDataDirs` each on its own (as on several machines, sharing only
 * what `env` names: a MongoDB database, say).
 */
export async function startInstances(
  count: number,
  env: Record<string, string> = {},
  options: { separateDataDirs?: boolean } = {},
): Promise<Instances> {
  const dataDir = tempDir('troupe-multi-');
  const dirs = Array.from({ length: count }, (_, i) =>
    options.separateDataDirs ? tempDir(`troupe-multi-${i}-`) : dataDir,
  );
  const started = await Promise.allSettled(dirs.map((dir) => startChildServer(dir, { ...SHARED, ...env })));
  const servers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const close = async (): Promise<void> => {
    await Promise.all(
      servers.map(async (s) => {
        s.child.kill('SIGTERM');
        await s.exited;
      }),
    );
    for (const dir of new Set([dataDir, ...dirs])) rmSync(dir, { recursive: true, force: true });
  };
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await close();
    throw failed.reason;
  }
  return { dataDir, servers, close };
}

/** The status of `GET /app/listAll` with `token` at `server`: 200 while the token is good there. */
export const listAllStatus = async (server: ChildServer, token: string): Promise<number> =>
  (await fetch(`${server.url}/app/listAll`, { headers: bearer(token) })).status;

/** Whether `server` introspects `token` as active (the development client asks). */
export async function introspectsActive(server: ChildServer, token: string): Promise<boolean> {
  const res = await fetch(`${server.url}/oauth/introspect`, {
    method: 'POST',
    headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  return ((await res.json()) as { active: boolean }).active;
}

/** Two instances on one data directory (`a`, `b`) and an administrator's token from `a`. */
export interface AdministeredPair {
  instances: Instances;
  a: ChildServer;
  b: ChildServer;
  admin: string;
}

/** A suite named `name` whose tests run against an {@link AdministeredPair}, started once for the suite. */
export function administeredPairSuite(name: string): { t: Test<AdministeredPair>; ctx: AdministeredPair } {
  const ctx = {} as AdministeredPair;
  const t = suite(name, ctx);
  t.before(async () => {
    ctx.instances = await startInstances(2);
    const [a, b] = ctx.instances.servers;
    if (!a || !b) throw new Error('two instances expected');
    Object.assign(ctx, { a, b });
    ctx.admin = (await login(a.url, USERS.admin)).access_token;
  });
  t.after(async () => ctx.instances?.close());
  return { t, ctx };
}
