/**
 * The client check of the bare OAuth baselines (`bare-oauth.ts`, `bare-openid.ts`), as the
 * server's token endpoint does it for a client it has seen: HTTP Basic, BCrypt once, then the
 * SHA-256 of what matched looked up, with no BCrypt.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import { parseBasic } from '../../src/security/clients.ts';

/** The variable `name` of the bare server's environment; it fails to start without it. */
export const required = (env: NodeJS.ProcessEnv, name: string): string => {
  const value = env[name];
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

/** A `security.clients-file` entry, the fields the baselines read. */
export interface Registered {
  readonly client_id: string;
  readonly client_secret: string;
  readonly scope: string;
}

/** The clients of a `security.clients-file`. */
export const readRegistered = (file: string): Registered[] => JSON.parse(readFileSync(file, 'utf8')) as Registered[];

/** The client an `Authorization: Basic` header authenticates, if one does. */
export function cachedClientCheck(clients: readonly Registered[]) {
  const verified = new Map<string, Registered>();
  return async function authenticate(header: string): Promise<Registered | undefined> {
    const credentials = parseBasic(header);
    if (!credentials) return undefined;
    const cacheKey = createHash('sha256')
      .update(`${credentials.clientId}\0${credentials.clientSecret}`)
      .digest('base64url');
    const hit = verified.get(cacheKey);
    if (hit) return hit;
    const client = clients.find((c) => c.client_id === credentials.clientId);
    if (!client || !(await bcrypt.compare(credentials.clientSecret, client.client_secret))) return undefined;
    verified.set(cacheKey, client);
    return client;
  };
}

/** The body of a form POST. */
export async function formOf(req: NodeJS.ReadableStream): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return new URLSearchParams(text);
}
