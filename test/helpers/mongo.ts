/**
 * A MongoDB server for the tests that need one: `MONGODB_URI`, or a `mongod` on PATH started for
 * the run (a one-member replica set, so that transactions run). Otherwise the suites say why they
 * are skipped, on the output, and count as skipped.
 */
import type { MongoMemoryReplSet } from 'mongodb-memory-server-core';
import { onPath, skipSuite } from './skip.ts';

const envUri = process.env['MONGODB_URI'];
const mongod = envUri ? undefined : onPath('mongod');

/** Why MongoDB suites cannot run here, or undefined when they can. */
export const MONGO_SKIP_REASON =
  envUri || mongod ? undefined : 'no MongoDB server: set MONGODB_URI, or put mongod on PATH';

/** Registers one skipped test for `name` and prints the reason (uvu itself prints only a count). */
export function skipWithReason(name: string): void {
  skipSuite(name, MONGO_SKIP_REASON ?? 'not skipped');
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
