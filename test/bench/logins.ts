/**
 * Password-grant loads of many people at once. Identical logins in flight share one check
 * (`actors/token/grants/logins-in-flight.ts`), so a load that sent one person's login on every
 * connection would measure one BCrypt compare shared by all, not the pool. These loads send the
 * logins of `LOGIN_ACCOUNTS` accounts in turn (a lines file of bodies), so the logins in flight are
 * always different ones, each with its own compare, as when many people sign in.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { USERS } from '../helpers/tokens.ts';

/** More than the connections of every login load, so no two logins in flight are alike. */
export const LOGIN_ACCOUNTS = 48;

const usernameOf = (i: number): string => `storm-${String(i).padStart(2, '0')}`;

/** Initial-data accounts beside the file's own: john.doe's password under `hash`, the USER role. */
export function loginAccounts(hash: string): { username: string; password: string; roles: string[] }[] {
  return Array.from({ length: LOGIN_ACCOUNTS }, (_, i) => ({
    username: usernameOf(i),
    password: hash,
    roles: ['USER'],
  }));
}

/** Writes the password-grant bodies of the accounts of {@link loginAccounts}, one per line, into `dir`. */
export function loginBodies(dir: string, password: string = USERS.john.password): string {
  const file = join(dir, 'login-bodies.txt');
  const bodies = Array.from({ length: LOGIN_ACCOUNTS }, (_, i) =>
    new URLSearchParams({ grant_type: 'password', username: usernameOf(i), password }).toString(),
  );
  writeFileSync(file, `${bodies.join('\n')}\n`);
  return file;
}

/** The accounts of {@link loginAccounts}, created through the administration API of a running server. */
export async function createLoginAccounts(url: string, adminToken: string, password: string): Promise<void> {
  for (let i = 0; i < LOGIN_ACCOUNTS; i++) {
    const res = await fetch(`${url}/app/admin/users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: usernameOf(i), password, roles: ['USER'] }),
    });
    if (res.status !== 201) throw new Error(`creating ${usernameOf(i)}: ${res.status} ${await res.text()}`);
  }
}
