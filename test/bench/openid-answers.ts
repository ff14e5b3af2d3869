/**
 * Before claims 21 and 22 are measured: troupe and the bare OpenID handlers answer alike. A code
 * of each redeemed at each gives the same token answer (fields, headers and claims; what differs
 * by issue, checked apart), both signed with the keys troupe publishes; both logins are the
 * account's live logins as troupe lists them; and UserInfo answers each token with the same body,
 * byte for byte.
 */
import { isDeepStrictEqual } from 'node:util';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { atHash } from '../../src/security/id-token.ts';
import { fetchCode, redeemBody, type HeldCode } from './codes.ts';
import { countsDown, type Child } from './harness.ts';
import { OPENID_CLIENT, SHARED, TOKEN_FORM, type OpenIdPair } from './openid-pair.ts';

type Keys = ReturnType<typeof createLocalJWKSet>;

interface Answer {
  readonly status: number;
  readonly headers: readonly (string | null)[];
  readonly body: string;
}

/** A token answer, with when its body had arrived (ms). */
interface Redeemed extends Answer {
  readonly answeredAt: number;
}

async function answer(response: Response): Promise<Answer> {
  const headers = ['content-type', 'cache-control', 'pragma'].map((h) => response.headers.get(h));
  return { status: response.status, headers, body: await response.text() };
}

const redeem = async (child: Child, held: HeldCode): Promise<Redeemed> => {
  const response = await fetch(`${child.url}/oauth/token`, {
    method: 'POST',
    headers: TOKEN_FORM,
    body: redeemBody(OPENID_CLIENT, held),
  });
  return { ...(await answer(response)), answeredAt: Date.now() };
};

const userInfo = async (child: Child, token: string): Promise<Answer> =>
  answer(await fetch(`${child.url}/userinfo`, { headers: { Authorization: `Bearer ${token}` } }));

/**
 * A token answer with what differs by issue left out (the tokens, `jti`, the times, the login's
 * `sid`, the `nonce` and `at_hash`), each of those checked against the rest; the tokens verified
 * with troupe's published keys.
 */
async function comparable({ body, answeredAt }: Redeemed, held: HeldCode, keys: Keys) {
  const {
    access_token: access,
    id_token: id,
    jti,
    expires_in: expiresIn,
    ...rest
  } = JSON.parse(body) as Record<string, unknown>;
  if (typeof access !== 'string' || typeof id !== 'string' || typeof expiresIn !== 'number')
    throw new Error(`not an OpenID token answer: ${body}`);
  const { issuer, audience, validity } = SHARED;
  const accessToken = await jwtVerify(access, keys, { issuer, audience, typ: 'at+jwt' });
  const idToken = await jwtVerify(id, keys, { issuer, audience: OPENID_CLIENT.id, typ: 'JWT' });
  const { jti: claimed, iat, exp, sid, ...claims } = accessToken.payload;
  const { iat: idIat, exp: idExp, nonce, at_hash: hash, auth_time: authTime, ...idClaims } = idToken.payload;
  if (claimed !== jti || typeof iat !== 'number' || exp !== iat + validity || typeof sid !== 'string')
    throw new Error(`an inconsistent access token: ${body}`);
  if (typeof idIat !== 'number' || idExp !== idIat + validity || typeof authTime !== 'number' || authTime > idIat)
    throw new Error(`an inconsistent id_token: ${body}`);
  if (idToken.protectedHeader.alg !== 'RS256') throw new Error(`an id_token not signed with RS256: ${body}`);
  if (nonce !== held.nonce || hash !== atHash(access, 'RS256'))
    throw new Error(`the id_token's nonce or at_hash is not the request's and the access token's: ${body}`);
  return {
    sid,
    same: {
      fields: Object.keys(JSON.parse(body) as object),
      rest,
      counts: countsDown(expiresIn, exp, validity, answeredAt),
      access: { header: decodeProtectedHeader(access), claims },
      id: { header: decodeProtectedHeader(id), claims: idClaims },
    },
  };
}

/** Throws unless both servers answer alike; answers a token troupe issued, for the UserInfo runs. */
export async function sameOpenIdAnswers(pair: OpenIdPair, adminToken: string): Promise<string> {
  const account = pair.accounts[0];
  if (!account) throw new Error('no account');
  // An email, so that the email scope releases its claims.
  const patched = await fetch(`${pair.troupe.url}/app/admin/users/${account.id}`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: `${account.username}@bench.example` }),
  });
  if (patched.status !== 200) throw new Error(`setting the email: ${patched.status} ${await patched.text()}`);
  const jwks = await fetch(`${pair.troupe.url}/.well-known/jwks.json`);
  const keys = createLocalJWKSet((await jwks.json()) as JSONWebKeySet);
  const held = [
    await fetchCode(pair.troupe.url, OPENID_CLIENT, account),
    await fetchCode(pair.troupe.url, OPENID_CLIENT, account),
  ] as const;
  const [served, bare] = [await redeem(pair.troupe, held[0]), await redeem(pair.bare, held[1])];
  if (served.status !== 200 || bare.status !== 200)
    throw new Error(`token answers ${served.status} and ${bare.status}:\n${served.body}\n${bare.body}`);
  const [a, b] = [await comparable(served, held[0], keys), await comparable(bare, held[1], keys)];
  if (!isDeepStrictEqual(a.same, b.same) || !isDeepStrictEqual(served.headers, bare.headers))
    throw new Error(`the bare server's token answer differs:\n${served.body}\n${bare.body}`);
  const logins = await fetch(`${pair.troupe.url}/app/admin/users/${account.id}/sessions`, {
    headers: { Authorization: `Bearer ${adminToken}` },
  });
  const live = ((await logins.json()) as { sid: string }[]).map((l) => l.sid);
  if (!live.includes(a.sid) || !live.includes(b.sid))
    throw new Error(`the account's live logins ${JSON.stringify(live)} lack ${a.sid} or ${b.sid}`);
  const tokens = [served, bare].map((t) => String((JSON.parse(t.body) as { access_token: string }).access_token));
  for (const token of tokens) {
    const [x, y] = [await userInfo(pair.troupe, token), await userInfo(pair.bare, token)];
    if (x.status !== 200 || !isDeepStrictEqual(x, y))
      throw new Error(`the bare server's UserInfo differs:\n${x.status} ${x.body}\n${y.status} ${y.body}`);
  }
  return tokens[0] ?? '';
}
