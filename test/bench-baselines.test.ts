/**
 * The bench's baselines answer what the server answers: its claims compare troupe with a bare Koa
 * server doing "the same work", and a baseline that drifted (a field the server dropped) would
 * stop the bench at its same-body check or, worse, measure something else.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { countsDown, startBare, startTroupe, tempDir, type Child } from './bench/harness.ts';
import { MACHINE_CLIENT, sameMachineAnswers, startMachinePair } from './bench/scenarios-machine.ts';
import { fetchCode, redeemBody } from './bench/codes.ts';
import { sameOpenIdAnswers } from './bench/openid-answers.ts';
import { OPENID_CLIENT, startOpenIdPair, TOKEN_FORM } from './bench/openid-pair.ts';
import { seedEmployees } from './bench/seed.ts';
import { pkce } from './helpers/authorize.ts';
import { basic, login, USERS } from './helpers/tokens.ts';

let troupe: Child;
let bare: Child;
let token: string;

test.before(async () => {
  const dir = tempDir('baselines');
  seedEmployees(dir, 3);
  troupe = await startTroupe(dir);
  bare = await startBare(join(dir, 'troupe.db'), dir);
  token = (await login(troupe.url)).access_token;
});

test.after(async () => {
  await bare?.stop();
  await troupe?.stop();
});

const get = async (child: Child, path: string, bearer = false) => {
  const response = await fetch(`${child.url}${path}`, {
    headers: bearer ? { Authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
};

test('GET /app/listAll: the bare listing is the server’s, byte for byte (claims 1 and 2)', async () => {
  const served = await get(troupe, '/app/listAll', true);
  assert.is(served.status, 200);
  assert.ok(JSON.parse(served.body).length > 0);
  const baseline = await get(bare, '/app/listAll');
  assert.is(baseline.status, 200);
  assert.is(baseline.body, served.body);
});

test('GET /api/employee/:id: the same JSON and ETag (claim 10)', async () => {
  const search = await fetch(`${troupe.url}/api/employee/search`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: '{"limit":1}',
  });
  const id = ((await search.json()) as { items: { id: string }[] }).items[0]?.id;
  assert.type(id, 'string');
  const served = await get(troupe, `/api/employee/${id}`, true);
  assert.is(served.status, 200);
  assert.equal(await get(bare, `/api/employee/${id}`), served);
});

test('expires_in: the lifetime or the whole seconds left at the answer, even across a second', () => {
  const iat = 1_795_945_906;
  const exp = iat + 3600;
  // Signed at iat + 0.9995 s, answered 1 ms later: 3598.9995 s left, floored.
  const answeredAt = (iat + 1) * 1000 + 1;
  assert.ok(countsDown(3598, exp, 3600, answeredAt));
  assert.ok(countsDown(3599, exp, 3600, answeredAt));
  assert.ok(countsDown(3600, exp, 3600, answeredAt), 'the lifetime itself');
  assert.not.ok(countsDown(3597, exp, 3600, answeredAt), 'more than the time taken');
  assert.not.ok(countsDown(3601, exp, 3600, answeredAt), 'longer than the lifetime');
  assert.not.ok(countsDown(3598.5, exp, 3600, answeredAt), 'not whole seconds');
});

test('POST /oauth/token (client_credentials) and POST /oauth/introspect: the same answers (claims 18 and 19)', async () => {
  const pair = await startMachinePair(tempDir('machine-baselines'));
  try {
    const token = await sameMachineAnswers(pair);
    const introspected = await fetch(`${pair.bare.url}/oauth/introspect`, {
      method: 'POST',
      headers: {
        Authorization: basic(MACHINE_CLIENT.id, MACHINE_CLIENT.secret),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }).toString(),
    });
    const body = (await introspected.json()) as Record<string, unknown>;
    assert.equal([body['active'], body['client_id'], body['token_type']], [true, MACHINE_CLIENT.id, 'Bearer']);
    const wrong = await fetch(`${pair.bare.url}/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: basic(MACHINE_CLIENT.id, 'wrong'),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    assert.is(wrong.status, 401, 'the bare handler checks the credentials too');
  } finally {
    await pair.stop();
  }
});

test('POST /oauth/token (authorization_code) and GET /userinfo: the same answers (claims 21 and 22)', async () => {
  const pair = await startOpenIdPair(tempDir('openid-baselines'));
  try {
    const admin = (await login(pair.troupe.url, USERS.admin)).access_token;
    const token = await sameOpenIdAnswers(pair, admin);
    const account = pair.accounts[1];
    if (!account) throw new Error('no second account');
    const redeem = (held: Awaited<ReturnType<typeof fetchCode>>, headers = TOKEN_FORM) =>
      fetch(`${pair.bare.url}/oauth/token`, { method: 'POST', headers, body: redeemBody(OPENID_CLIENT, held) });
    const held = await fetchCode(pair.troupe.url, OPENID_CLIENT, account);
    const wrongClient = await redeem(held, { ...TOKEN_FORM, Authorization: basic(OPENID_CLIENT.id, 'wrong') });
    assert.is(wrongClient.status, 401, 'the bare handler checks the client');
    assert.is((await redeem({ ...held, verifier: pkce().verifier })).status, 400, 'and the verifier');
    assert.is((await redeem(held)).status, 400, 'a code tried with a wrong verifier is spent');
    const fresh = await fetchCode(pair.troupe.url, OPENID_CLIENT, account);
    assert.is((await redeem(fresh)).status, 200);
    assert.is((await redeem(fresh)).status, 400, 'a code is redeemed once');
    const forged = await fetch(`${pair.bare.url}/userinfo`, {
      headers: { Authorization: `Bearer ${token.slice(0, -4)}AAAA` },
    });
    assert.is(forged.status, 401, 'the bare UserInfo verifies the token');
  } finally {
    await pair.stop();
  }
});

test.run();
