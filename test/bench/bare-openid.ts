/**
 * The baselines of the OpenID claims (21, 22): the essential work of two endpoints as bare Koa
 * handlers on the server's own SQLite file, through the same store adapters (so the same SQL), with
 * the server's keys (read from its key set), issuer, audience and clients:
 * - POST /oauth/token, `grant_type=authorization_code`: the client's Basic credentials by the cached
 *   check (`bare-clients.ts`), the code record found by its hash and spent in one transaction, its
 *   client, expiry, redirect_uri and PKCE S256 verifier checked, the account read (its roles go into
 *   the token, its version must be the code's), an access token signed with the active key of the
 *   access lineage and an id_token of the same claims as the server's with that of the id_token
 *   lineage, the login's record inserted, and the JSON;
 * - GET /userinfo: the bearer token verified with `jose` (every time: no cache), the account read
 *   by its id, its version checked, and the claims of the token's OpenID scopes as JSON.
 * Loaded by `bare-server.ts` when BARE_OPENID is set, with BARE_CLIENTS_FILE (a
 * `security.clients-file`), BARE_TOKEN_ISSUER, BARE_TOKEN_AUDIENCE and BARE_TOKEN_VALIDITY (seconds).
 */
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Context, Middleware } from 'koa';
import type { AppState } from '../../http/state.ts';
import { OPENID_SCOPE, userInfoClaims } from '../../src/security/claims.ts';
import { atHash } from '../../src/security/id-token.ts';
import { createSealer, openKeyRecord, type UsableKey } from '../../src/security/key-material.ts';
import { viewAt } from '../../src/security/key-set.ts';
import { isCodeVerifier, looksLikeAuthorizationCode, verifierMatches } from '../../src/security/pkce.ts';
import { hashToken, tokenlessLoginKey } from '../../src/security/refresh-tokens.ts';
import { accountSubject } from '../../src/security/subjects.ts';
import { sqliteAccountStore } from '../../src/stores/account-store.sqlite.ts';
import { sqliteAuthorizationCodeStore } from '../../src/stores/authorization-code-store.sqlite.ts';
import type { KeyUse } from '../../src/stores/key-store.ts';
import { sqliteKeyStore } from '../../src/stores/key-store.sqlite.ts';
import { sqliteRefreshTokenStore } from '../../src/stores/refresh-token-store.sqlite.ts';
import type { Db } from '../../src/stores/sqlite.ts';
import { cachedClientCheck, formOf, readRegistered, required, type Registered } from './bare-clients.ts';

const seconds = (): number => Math.floor(Date.now() / 1000);

/** The key of `use` that signs now, as the server opens it from the same records. */
async function activeKey(db: Db, use: KeyUse, validity: number): Promise<UsableKey> {
  const record = viewAt(await sqliteKeyStore(db, use).read(), seconds(), validity).active?.record;
  if (!record) throw new Error(`the key set has no active ${use} key: start the server on the file first`);
  return openKeyRecord(record, createSealer(undefined));
}

/** An OAuth error answer (RFC 6749 §5.2, RFC 6750 §3.1). */
function refuse(ctx: Context, status: number, error: string): void {
  ctx.status = status;
  ctx.body = { error };
}

export async function bareOpenId(db: Db, env: NodeJS.ProcessEnv): Promise<Middleware<AppState>> {
  const issuer = required(env, 'BARE_TOKEN_ISSUER');
  const audience = required(env, 'BARE_TOKEN_AUDIENCE');
  const validity = Number(required(env, 'BARE_TOKEN_VALIDITY'));
  const authenticate = cachedClientCheck(readRegistered(required(env, 'BARE_CLIENTS_FILE')));
  const accessKey = await activeKey(db, 'access', validity);
  const idTokenKey = await activeKey(db, 'id_token', validity);
  const accounts = sqliteAccountStore(db);
  const codes = sqliteAuthorizationCodeStore(db);
  const logins = sqliteRefreshTokenStore(db);

  /** The tokens of a code, or undefined where the server answers `invalid_grant`. */
  const redeem = async (client: Registered, params: URLSearchParams) => {
    const code = params.get('code') ?? '';
    const verifier = params.get('code_verifier') ?? '';
    if (!looksLikeAuthorizationCode(code) || !isCodeVerifier(verifier)) return undefined;
    const now = seconds();
    const record = await codes.spend(hashToken(code), now);
    if (!record) return undefined;
    if (record.usedAt !== null) {
      await logins.revokeLogin(record.loginId, now);
      return undefined;
    }
    if (
      record.clientId !== client.client_id ||
      record.expiresAt <= now ||
      record.redirectUri !== params.get('redirect_uri') ||
      record.codeChallenge === null ||
      !verifierMatches(verifier, record.codeChallenge)
    )
      return undefined;
    const account = record.accountId === null ? undefined : await accounts.findById(record.accountId);
    if (!account?.enabled || account.securityVersion !== record.accountVersion) return undefined;
    const subject = accountSubject(account.id);
    const scope = record.scope.join(' ');
    const exp = now + validity;
    const jti = randomUUID();
    const accessToken = await new SignJWT({
      client_id: client.client_id,
      scope,
      user_name: account.username,
      authorities: account.roles.map((r) => r.roleName),
      sid: record.loginId,
      account_id: account.id,
      account_version: account.securityVersion,
    })
      .setProtectedHeader({ alg: accessKey.alg, typ: 'at+jwt', kid: accessKey.kid })
      .setIssuer(issuer)
      .setSubject(subject)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .setJti(jti)
      .sign(accessKey.signKey);
    const idToken =
      record.authTime === null || !record.scope.includes(OPENID_SCOPE)
        ? undefined
        : await new SignJWT({
            auth_time: record.authTime,
            nonce: record.nonce ?? undefined,
            at_hash: atHash(accessToken, idTokenKey.alg),
          })
            .setProtectedHeader({ alg: idTokenKey.alg, typ: 'JWT', kid: idTokenKey.kid })
            .setIssuer(issuer)
            .setSubject(subject)
            .setAudience(client.client_id)
            .setIssuedAt(now)
            .setExpirationTime(exp)
            .sign(idTokenKey.signKey);
    const stored = await logins.insert({
      tokenHash: tokenlessLoginKey(record.loginId),
      loginId: record.loginId,
      clientId: client.client_id,
      username: account.username,
      scope: record.scope,
      issuedAt: now,
      expiresAt: exp,
      usedAt: null,
      revokedAt: null,
      accessExpiresAt: exp,
      generation: 0,
      accountId: account.id,
      accountVersion: account.securityVersion,
      authTime: record.authTime,
    });
    if (!stored) return undefined;
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: validity,
      scope,
      jti,
      ...(idToken === undefined ? {} : { id_token: idToken }),
    };
  };

  const token = async (ctx: Context): Promise<void> => {
    ctx.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    const client = await authenticate(ctx.get('Authorization'));
    if (!client) return refuse(ctx, 401, 'invalid_client');
    const params = await formOf(ctx.req);
    if (params.get('grant_type') !== 'authorization_code') return refuse(ctx, 400, 'unsupported_grant_type');
    const answer = await redeem(client, params);
    if (!answer) return refuse(ctx, 400, 'invalid_grant');
    ctx.body = answer;
  };

  const userInfo = async (ctx: Context): Promise<void> => {
    ctx.set('Cache-Control', 'no-store');
    const presented = /^Bearer ([^ ]+)$/.exec(ctx.get('Authorization'))?.[1];
    if (presented === undefined) return refuse(ctx, 401, 'invalid_token');
    let claims;
    try {
      claims = (
        await jwtVerify(presented, accessKey.verifyKey, {
          typ: 'at+jwt',
          issuer,
          audience,
          algorithms: [accessKey.alg],
          clockTolerance: 30,
          requiredClaims: ['exp', 'iat', 'jti', 'sub'],
        })
      ).payload;
    } catch {
      return refuse(ctx, 401, 'invalid_token');
    }
    const scopes = typeof claims['scope'] === 'string' ? claims['scope'].split(' ') : [];
    if (!scopes.includes(OPENID_SCOPE)) return refuse(ctx, 403, 'insufficient_scope');
    const [id, version] = [claims['account_id'], claims['account_version']];
    if (typeof id !== 'number' || typeof version !== 'number') return refuse(ctx, 401, 'invalid_token');
    const account = await accounts.findById(id);
    if (!account?.enabled || account.securityVersion !== version) return refuse(ctx, 401, 'invalid_token');
    ctx.body = userInfoClaims(account, scopes);
  };

  return async function bareOpenIdEndpoints(ctx, next) {
    if (ctx.method === 'POST' && ctx.path === '/oauth/token') return token(ctx);
    if (ctx.method === 'GET' && ctx.path === '/userinfo') return userInfo(ctx);
    return next();
  };
}
