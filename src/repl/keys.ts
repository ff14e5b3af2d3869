/** The text of the REPL's `.keys` command: this process's view of the signing keys. */
import type { KeyRing } from '../security/key-ring.ts';

const LIFECYCLE = [
  'next: published in the JWKS and verifying; signs once security.keys.publish-ahead-seconds have passed',
  'active: signs every new token (one key); retired: verifies until every token it signed has expired',
  'npm run keys -- list | rotate [--alg ALG] | retire KID changes the set; every process sees it at once',
];

/** One key a line (state, algorithm, kid, whether it is published), then the lifecycle in three lines. */
export async function formatKeys(ring: KeyRing): Promise<string> {
  const keys = await ring.keys();
  const head = ring.configured
    ? 'signing keys, fixed by configuration (security.signing-key, security.previous-signing-keys):'
    : 'signing keys, from the key set in the store:';
  const lines = keys.map(
    ({ key, state }) =>
      `  ${state.padEnd(8)}${key.alg.padEnd(7)}${key.kid}${key.publicJwk ? '' : '  (MAC key: never published)'}`,
  );
  return [head, ...lines, ...(ring.configured ? [] : LIFECYCLE.map((l) => `  ${l}`))].join('\n');
}
