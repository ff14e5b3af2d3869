/**
 * How strong a client secret must be. A registered secret is stored as a BCrypt hash, so its
 * length cannot be read at start-up; two checks stand in for it, each where it can be made:
 * - `npm run hash -- --client` sees the secret itself, and refuses one shorter than
 *   {@link MIN_CLIENT_SECRET_LENGTH} characters (a random one of that length has well over 128
 *   bits);
 * - at start-up, each confidential client's hash is compared with the secrets a guesser tries
 *   first ({@link guessedFirst}): one that matches stops the start with a line naming the client,
 *   never the secret. A few BCrypt comparisons per client, once, on the worker pool.
 * The per-address count bounds how fast any one address guesses; a secret's strength is what
 * keeps guessing from many addresses hopeless, now that the right secret is never locked out.
 */
import type { Client } from './clients.ts';
import type { PasswordHasher } from './passwords.ts';

/** The shortest client secret `npm run hash -- --client` hashes. */
export const MIN_CLIENT_SECRET_LENGTH = 32;

/** The secrets tried first against a client: its own id, and the usual placeholders. */
export const guessedFirst = (clientId: string): readonly string[] => [
  clientId,
  'secret',
  'client-secret',
  'changeme',
  'password',
];

/**
 * One line per confidential client whose secret is one of those guessed first, naming the client
 * only. `skip`: hashes not to compare (the development client's, refused in production already).
 */
export async function weakClientSecrets(
  clients: readonly Client[],
  hasher: Pick<PasswordHasher, 'verify'>,
  skip: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const weak = await Promise.all(
    clients.map(async ({ clientId, secretHash }) => {
      if (secretHash === undefined || skip.has(secretHash)) return false;
      const matches = await Promise.all(guessedFirst(clientId).map((guess) => hasher.verify(guess, secretHash)));
      return matches.includes(true);
    }),
  );
  return clients
    .filter((_, i) => weak[i])
    .map(
      ({ clientId }) =>
        `Invalid configuration: client ${JSON.stringify(clientId)} has a secret that is guessed first (its id or a placeholder); register a random one of at least ${MIN_CLIENT_SECRET_LENGTH} characters (npm run hash -- --client)`,
    );
}
