/**
 * The signing keys of a process, a ring for each lineage of the set. The access-token keys are
 * fixed by configuration (`security.signing-key`, with `security.previous-signing-keys`), or the
 * access lineage of the key set in the store, whose first key is made on the first start: the MAC
 * key an older version generated into the data directory when there is one (its tokens stay valid;
 * the next rotation moves to the default), else a new ES256 key. The id_token keys are always the
 * id_token lineage in the store, whose first key is a new RS256 key, whatever signs access tokens.
 */
import { hostname } from 'node:os';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createSealer, generatePrivateKey, KeyStoreUnreadableError, usableKey } from '../security/key-material.ts';
import { fixedKeyRing, storedKeyRing, type KeyRing } from '../security/key-ring.ts';
import { DEFAULT_ALGS } from '../security/key-set.ts';
import {
  LEGACY_GENERATED_FILE,
  loadConfiguredKey,
  loadPreviousKeys,
  readLegacyGeneratedKey,
} from './configured-keys.ts';
import type { KeyStore, KeyUse } from '../stores/key-store.ts';

/** Who a change to the key set is logged as made by. */
export const actor = (what: string): string => `${what} (pid ${process.pid} on ${hostname()})`;

/** Whether configuration fixes the keys, so that the key set is not used. */
export const keysConfigured = (config: Config): boolean => (config.security.signingKey ?? '').trim() !== '';

/**
 * A start-up (`npm start`, the REPL) on a key set that cannot be used does not start
 * (docs/security.md): the process ends with one line on stderr naming the key, what is wrong and
 * what to do, and exit code 1, as on bad configuration. Anything else is rethrown.
 */
export function exitOnUnusableKeys(error: unknown): never {
  if (!(error instanceof KeyStoreUnreadableError)) throw error;
  process.stderr.write(`troupe cannot start: ${error.message}\n`);
  process.exit(1);
}

/** A new key of the lineage's default algorithm, for its first start. */
async function generatedKey(use: KeyUse) {
  const alg = DEFAULT_ALGS[use];
  return { key: await usableKey(generatePrivateKey(alg), alg), by: actor('first start') };
}

/** The ring of a lineage in the store, started: its first key made when it has none. */
async function startedRing(
  config: Config,
  use: KeyUse,
  store: KeyStore,
  logger: Logger,
  firstKey: () => ReturnType<typeof generatedKey>,
): Promise<KeyRing> {
  const ring = storedKeyRing({
    use,
    store,
    sealer: createSealer(config.security.keys.encryptionSecret),
    // An id_token lives as long as an access token: a retired key of either lineage verifies as long.
    validity: config.security.jwt.accessTokenValidity,
    logger,
    firstKey,
  });
  await ring.start();
  return ring;
}

/** The access-token keys: configured, or the access lineage of the set in `store`. */
export async function openKeyRing(config: Config, store: KeyStore, logger: Logger): Promise<KeyRing> {
  const strength = config.security.encodingStrength;
  if (keysConfigured(config)) {
    const active = await loadConfiguredKey(config.security.signingKey ?? '', strength, 'security.signing-key');
    return fixedKeyRing(active, await loadPreviousKeys(config.security.previousSigningKeys, strength));
  }
  return startedRing(config, 'access', store, logger, async () => {
    const legacy = await readLegacyGeneratedKey(config.data.dir, strength);
    if (legacy) return { key: legacy, by: actor(`first start, from data.dir/${LEGACY_GENERATED_FILE}`) };
    return generatedKey('access');
  });
}

/** The id_token keys: the id_token lineage of the set in `store`, also beside a configured access key. */
export const openIdTokenKeyRing = (config: Config, store: KeyStore, logger: Logger): Promise<KeyRing> =>
  startedRing(config, 'id_token', store, logger, () => generatedKey('id_token'));
