/** The text of the REPL's `.keys` command: this process's view of the signing keys. */
import type { KeyRing } from '../security/key-ring.ts';

const LIFECYCLE = [
  'next: published in the JWKS and verifying; signs once security.keys.publish-ahead-seconds have passed',
  'active: signs every new token (one key); retired: verifies until every token it signed has expired',
  'npm run keys -- list | rotate [--alg ALG] [--use id_token] | retire KID changes the set; every process sees it at once',
];

/** One key a line: its state, algorithm, kid, and whether it is published. */
const keyLines = async (ring: KeyRing): Promise<string[]> =>
  (await ring.keys()).map(
    ({ key, state }) =>
      `  ${state.padEnd(8)}${key.alg.padEnd(7)}${key.kid}${key.publicJwk ? '' : '  (MAC key: never published)'}`,
  );

/**
 * The access-token keys, then the id_token keys (their own lineage in the store, whatever signs
 * the access tokens), then the lifecycle in three lines.
 */
export async function formatKeys(ring: KeyRing, idTokenRing?: KeyRing): Promise<string> {
  const head = ring.configured
    ? 'signing keys, fixed by configuration (security.signing-key, security.previous-signing-keys):'
    : 'signing keys, from the key set in the store:';
  const idTokens = idTokenRing
    ? ['id_token keys, from the key set in the store:', ...(await keyLines(idTokenRing))]
    : [];
  const stored = !ring.configured || idTokenRing !== undefined;
  return [head, ...(await keyLines(ring)), ...idTokens, ...(stored ? LIFECYCLE.map((l) => `  ${l}`) : [])].join('\n');
}
