/** Several real troupe processes on one data directory, as an operator would run them. */
import { rmSync } from 'node:fs';
import { startChildServer, type ChildServer } from './child.ts';
import { tempDir } from './server.ts';

/** What every instance of one service must share besides the data (the key is the generated one there). */
export const SHARED = { SECURITY_JWT_ISSUER: 'http://troupe.test' };

export interface Instances {
  readonly dataDir: string;
  readonly servers: readonly ChildServer[];
  /** SIGTERM to every process, then the data directory is removed. */
  close(): Promise<void>;
}

/** Starts `count` processes on one fresh data directory, all at once (their start-ups race, as they may). */
export async function startInstances(count: number, env: Record<string, string> = {}): Promise<Instances> {
  const dataDir = tempDir('troupe-multi-');
  const started = await Promise.allSettled(Array.from({ length: count }, () => startChildServer(dataDir, { ...SHARED, ...env })));
  const servers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const close = async (): Promise<void> => {
    await Promise.all(servers.map(async (s) => {
      s.child.kill('SIGTERM');
      await s.exited;
    }));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await close();
    throw failed.reason;
  }
  return { dataDir, servers, close };
}
