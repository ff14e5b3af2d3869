/**
 * Revocation horizons come from the tokens' own claims, not from the revoking process's clock:
 * three TokenActors on one SQLite file stand for three processes, each with its own clock. A
 * process started after the revocation must refuse the login's tokens for as long as they verify.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import { processesOnOneFile, SETTINGS, type TokenActorSetup } from '../helpers/token-actor.ts';

const t = suite('TokenActor: revocation horizons across processes with different clocks');
const startProcess = processesOnOneFile(t, 'clocks');

const T0 = Date.now();
const SKEW_MS = 30_000;

/** A process on the shared file whose clock reads `clock.now`. */
async function aProcess(clock: { now: number }): Promise<TokenActorSetup> {
  return startProcess({ now: () => clock.now, refreshTokenValidity: 86_400 });
}

function value<T>(reply: { ok: true; value: T } | { ok: false; code: string }): T {
  if (!reply.ok) throw new Error(`expected a value, got ${reply.code}`);
  return reply.value;
}

const login = async (p: TokenActorSetup): Promise<Token.TokenGrant> =>
  value(
    await ask(
      p.token,
      Token.issueToken({
        clientId: 'troupe-client',
        username: 'john.doe',
        password: 'john-password',
        scope: undefined,
      }),
      5000,
    ),
  );

const revoke = async (p: TokenActorSetup, token: string): Promise<void> => {
  value(await ask(p.token, Token.revoke({ clientId: 'troupe-client', token }), 5000));
};

const refused = (p: TokenActorSetup, token: string, at: number): Promise<string> =>
  p.verify(token, at).then(
    () => 'verified',
    (error: unknown) => (error instanceof Error ? error.message : 'refused'),
  );

t(
  "a login revoked by a process 60 s behind: a process started later refuses the login's last token until it expires",
  async () => {
    const a = await aProcess({ now: T0 });
    const first = await login(a);
    const rotating = await aProcess({ now: T0 + 1000_000 });
    const refreshed = value(
      await ask(
        rotating.token,
        Token.refresh({ clientId: 'troupe-client', refreshToken: first.refreshToken ?? '', scope: undefined }),
        5000,
      ),
    );
    const behind = await aProcess({ now: T0 + 1000_000 - 60_000 });
    await revoke(behind, refreshed.refreshToken ?? '');
    // The last token expires at T0 + 1000 s + validity; verifiers accept it for the skew after that.
    const lastExp = T0 + 1000_000 + SETTINGS.validity * 1000;
    for (const at of [lastExp - 5_000, lastExp + SKEW_MS - 2_000]) {
      const fresh = await aProcess({ now: at });
      assert.is(
        await refused(fresh, refreshed.accessToken, at),
        'Access token revoked',
        `at exp ${(at - lastExp) / 1000} s`,
      );
    }
  },
);

t(
  'an access token revoked on its own: refused for as long as a verifier would accept it, exp plus the skew',
  async () => {
    const clock = { now: T0 };
    const a = await aProcess(clock);
    const g = await login(a);
    await revoke(a, g.accessToken);
    const exp = T0 + SETTINGS.validity * 1000;
    for (const at of [exp - 1000, exp + SKEW_MS - 2000]) {
      clock.now = at;
      assert.is(await refused(a, g.accessToken, at), 'Access token revoked', 'the revoking process');
      const fresh = await aProcess({ now: at });
      assert.is(await refused(fresh, g.accessToken, at), 'Access token revoked', 'a process started later');
    }
  },
);

t.run();
