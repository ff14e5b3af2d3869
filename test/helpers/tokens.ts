/** Token requests as a client would make them. */
import { createSecretKey } from 'node:crypto';
import { calculateJwkThumbprint, SignJWT } from 'jose';
import type { Config } from '../../src/config.ts';

export const CLIENT_ID = 'troupe-client';
export const CLIENT_SECRET = 'troupe-secret';

export const basic = (id = CLIENT_ID, secret = CLIENT_SECRET): string =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

export const USERS = {
  admin: { username: 'admin', password: 'admin-password' },
  john: { username: 'john.doe', password: 'john-password' },
} as const;

export interface TokenResponse {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  expires_in: number;
  scope: string;
  jti: string;
}

export async function postToken(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = { Authorization: basic() },
): Promise<Response> {
  return fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

export async function login(
  url: string,
  user: { username: string; password: string } = USERS.john,
  scope?: string,
  clientAuth = basic(),
): Promise<TokenResponse> {
  const res = await postToken(
    url,
    { grant_type: 'password', ...user, ...(scope ? { scope } : {}) },
    { Authorization: clientAuth },
  );
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as TokenResponse;
}

export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

/**
 * An access token as this server issues them (john.doe, both scopes and roles, a login id), signed
 * with the configured MAC `key` without going through a login: `lifetime` seconds from now.
 */
export async function forgeAccessToken(config: Config, key: string, lifetime = 600): Promise<string> {
  const kid = await calculateJwkThumbprint({ kty: 'oct', k: Buffer.from(key).toString('base64url') });
  const now = Math.floor(Date.now() / 1000);
  const jwt = config.security.jwt;
  return new SignJWT({
    client_id: jwt.clientId,
    scope: 'read write',
    authorities: ['ADMIN', 'USER'],
    sid: crypto.randomUUID(),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid })
    .setIssuer(jwt.issuer)
    .setAudience(jwt.resourceIds)
    .setSubject('john.doe')
    .setJti(crypto.randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + lifetime)
    .sign(createSecretKey(Buffer.from(key)));
}
