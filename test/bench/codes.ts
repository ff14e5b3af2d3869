/**
 * Authorization codes for the code flow's token requests (claim 21), obtained as a browser obtains
 * them: the server's real authorization endpoint, its sign-in page opened (GET, which sets the CSRF
 * cookie) and posted with an account's password (BCrypt at cost 4, the server's configured cost,
 * so no password is hashed again), redirected back with the code. Each code has its own PKCE
 * verifier and `nonce`, and the accounts sign in in turn, so that no two sign-ins in flight are
 * alike (identical ones share one check) and no account gathers many logins. A code is spent once
 * and lives 60 s: each measurement gets codes fetched right before it, one per request, as a lines
 * file of token-request bodies (`LoadSpec.linesFile`).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { authorizeUrl, openForm, pkce, redirectedTo, submit } from '../helpers/authorize.ts';

/** An authorization_code client of the clients file. */
export interface CodeClient {
  readonly id: string;
  readonly redirect: string;
  readonly scope: string;
}

export interface Account {
  readonly username: string;
  readonly password: string;
}

/** One code as the client holds it after the redirect, and what it sent to get it. */
export interface HeldCode {
  readonly code: string;
  readonly verifier: string;
  readonly nonce: string;
}

/** A code for `client`, `account` signed in at the authorization endpoint of `url`. */
export async function fetchCode(url: string, client: CodeClient, account: Account): Promise<HeldCode> {
  const { verifier, challenge } = pkce();
  const nonce = randomBytes(16).toString('base64url');
  const form = await openForm(
    authorizeUrl(url, {
      response_type: 'code',
      client_id: client.id,
      redirect_uri: client.redirect,
      scope: client.scope,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: randomBytes(8).toString('base64url'),
      nonce,
    }),
  );
  if (form.status !== 200) throw new Error(`the sign-in page answered ${form.status}`);
  const code = redirectedTo(await submit(url, form, account)).searchParams.get('code');
  if (code === null) throw new Error(`the sign-in of ${account.username} gave no code`);
  return { code, verifier, nonce };
}

/** The token request that redeems `held`. */
export const redeemBody = (client: CodeClient, held: HeldCode): string =>
  new URLSearchParams({
    grant_type: 'authorization_code',
    code: held.code,
    redirect_uri: client.redirect,
    code_verifier: held.verifier,
  }).toString();

export interface FetchedCodes {
  /** The lines file: one token-request body per code, in the order they came. */
  readonly file: string;
  /** `performance.now()` when the first code was asked for: none is older. */
  readonly firstAt: number;
  /** How many codes it holds: fewer than asked for when the time to fetch them ran out. */
  readonly count: number;
  /** Codes a second the endpoint gave. */
  readonly rate: number;
}

/**
 * `count` codes from `lanes` sign-ins at a time, the accounts in turn, written to `dir` as token
 * request bodies; no sign-in begins once `seconds` have passed, so that the first code is still
 * young when the last is redeemed.
 */
export async function fetchCodes(
  url: string,
  client: CodeClient,
  accounts: readonly Account[],
  want: { readonly count: number; readonly seconds: number },
  dir: string,
  lanes = 16,
): Promise<FetchedCodes> {
  const bodies: string[] = [];
  let next = 0;
  const firstAt = performance.now();
  const deadline = firstAt + want.seconds * 1000;
  const lane = async (): Promise<void> => {
    while (next < want.count && performance.now() < deadline) {
      const account = accounts[next++ % accounts.length];
      if (account === undefined) throw new Error('no account to sign in with');
      bodies.push(redeemBody(client, await fetchCode(url, client, account)));
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  const file = join(dir, 'code-bodies.txt');
  writeFileSync(file, `${bodies.join('\n')}\n`);
  return { file, firstAt, count: bodies.length, rate: bodies.length / ((performance.now() - firstAt) / 1000) };
}
