/**
 * A MongoDB server for the tests that need one: `MONGODB_URI`, or a `mongod` on PATH started for
 * the run (a one-member replica set, so that transactions run). Otherwise the suites say why they
 * are skipped, on the output, and count as skipped.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import type { MongoMemoryReplSet } from 'mongodb-memory-server-core';
import { suite } from 'uvu';

function onPath(binary: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(':').filter(Boolean)) {
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return join(dir, binary);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const envUri = process.env['MONGODB_URI'];
const mongod = envUri ? undefined : onPath('mongod');

/** Why MongoDB suites cannot run here, or undefined when they can. */
export const MONGO_SKIP_REASON = envUri || mongod ? undefined : 'no MongoDB server: set MONGODB_URI, or put mongod on PATH';

/** Registers one skipped test for `name` and prints the reason (uvu itself prints only a count). */
export function skipWithReason(name: string): void {
  process.stdout.write(`  skipped: ${name}: ${MONGO_SKIP_REASON ?? 'not skipped'}\n`);
  const s = suite(name);
  s.skip(MONGO_SKIP_REASON ?? name, () => {});
  s.run();
}

let server: MongoMemoryReplSet | undefined;

/** The server's URI (without a database name); starts mongod on first use when there is no MONGODB_URI. */
export async function mongoUri(): Promise<string> {
  if (envUri) return envUri;
  if (!mongod) throw new Error(MONGO_SKIP_REASON);
  if (!server) {
    const { MongoMemoryReplSet } = await import('mongodb-memory-server-core');
    server = await MongoMemoryReplSet.create({ replSet: { count: 1 }, binary: { systemBinary: mongod } });
  }
  return server.getUri();
}

export async function stopMongo(): Promise<void> {
  await server?.stop();
  server = undefined;
}

/** `uri` with its database name replaced by `name` (the part after the hosts, before the options). */
export function withDatabase(uri: string, name: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(?:\/[^?]*)?(\?.*)?$/.exec(uri);
  if (!m) throw new Error('MONGODB_URI is not a mongodb:// URI');
  return `${m[1]}/${name}${m[2] ?? ''}`;
}
