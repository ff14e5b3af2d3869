/**
 * The servers of scenarios 21 and 22 on one data directory: troupe with its default key set (an
 * ES256 access key and an RS256 id_token key, made on its first start) and the bare OpenID handlers
 * (`bare-openid.ts`), which read those keys from the same file; both with one issuer, audience and
 * `security.clients-file` client (client_secret_basic, consent implicit), and 1,000 seeded accounts
 * whose cost-4 hashes the server's configured cost matches.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { basic } from '../helpers/tokens.ts';
import { startBare, startTroupe, type Child } from './harness.ts';
import type { Account, CodeClient } from './codes.ts';
import { seedAccounts } from './seed.ts';

/** The client of claims 21 and 22 (`security.clients-file`): a first-party web application. */
export const OPENID_CLIENT = {
  id: 'bench-web',
  secret: 'bench-web-secret',
  redirect: 'http://127.0.0.1:9/bench/callback',
  scope: 'openid profile email',
} as const satisfies CodeClient & { secret: string };
const ISSUER = 'http://troupe.bench';
const AUDIENCE = 'troupe-api';
const VALIDITY = 3600;
/** Accounts signing in in turn: over the whole scenario each gathers a few dozen logins at most. */
const ACCOUNTS = 1000;
const PASSWORD = 'bench-password';

export const TOKEN_FORM = {
  Authorization: basic(OPENID_CLIENT.id, OPENID_CLIENT.secret),
  'Content-Type': 'application/x-www-form-urlencoded',
};

export interface OpenIdPair {
  readonly troupe: Child;
  readonly bare: Child;
  /** The seeded accounts, with their ids. */
  readonly accounts: readonly (Account & { readonly id: number })[];
  readonly dir: string;
  stop(): Promise<void>;
}

/** Troupe and the bare OpenID handlers on a fresh data directory of `ACCOUNTS` seeded accounts. */
export async function startOpenIdPair(dir: string): Promise<OpenIdPair> {
  const ids = seedAccounts(dir, ACCOUNTS, bcrypt.hashSync(PASSWORD, 4));
  const clients = join(dir, 'clients.json');
  writeFileSync(
    clients,
    JSON.stringify([
      {
        client_id: OPENID_CLIENT.id,
        client_secret: bcrypt.hashSync(OPENID_CLIENT.secret, 10),
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: [OPENID_CLIENT.redirect],
        grant_types: ['authorization_code'],
        scope: OPENID_CLIENT.scope,
        consent: 'implicit',
      },
    ]),
  );
  const troupe = await startTroupe(dir, {
    SECURITY_CLIENTS_FILE: clients,
    SECURITY_JWT_ISSUER: ISSUER,
    SECURITY_JWT_RESOURCE_IDS: AUDIENCE,
    SECURITY_JWT_ACCESS_TOKEN_VALIDITY: String(VALIDITY),
    // The seeded hashes' cost: no sign-in hashes its password again.
    SECURITY_PASSWORD_BCRYPT_COST: '4',
  });
  // Started after troupe, whose first start made the key set the bare server reads.
  const bare = await startBare(join(dir, 'troupe.db'), dir, {
    BARE_OPENID: '1',
    BARE_CLIENTS_FILE: clients,
    BARE_TOKEN_ISSUER: ISSUER,
    BARE_TOKEN_AUDIENCE: AUDIENCE,
    BARE_TOKEN_VALIDITY: String(VALIDITY),
  }).catch(async (error: unknown) => {
    await troupe.stop();
    throw error;
  });
  return {
    troupe,
    bare,
    accounts: ids.map((id, i) => ({ id, username: `bench.user${i}`, password: PASSWORD })),
    dir,
    async stop() {
      await bare.stop();
      await troupe.stop();
    },
  };
}

/** The settings both servers share, for the answers' checks. */
export const SHARED = { issuer: ISSUER, audience: AUDIENCE, validity: VALIDITY } as const;
