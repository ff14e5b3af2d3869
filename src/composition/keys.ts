/**
 * The signing keys of a process: fixed by configuration (`security.signing-key`, with
 * `security.previous-signing-keys`), or the key set in the store, whose first key is made on the
 * first start: the MAC key an older version generated into the data directory when there is one
 * (its tokens stay valid; the next rotation moves to the default), else a new ES256 key.
 */
import { hostname } from 'node:os';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createSealer, generatePrivateKey, KeyStoreUnreadableError, usableKey } from '../security/key-material.ts';
import { fixedKeyRing, storedKeyRing, type KeyRing } from '../security/key-ring.ts';
import { DEFAULT_ALG } from '../security/key-set.ts';
import {
  LEGACY_GENERATED_FILE,
  loadConfiguredKey,
  loadPreviousKeys,
  readLegacyGeneratedKey,
} from './configured-keys.ts';
import type { KeyStore } from '../stores/key-store.ts';

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

export async function openKeyRing(config: Config, store: KeyStore, logger: Logger): Promise<KeyRing> {
  const strength = config.security.encodingStrength;
  if (keysConfigured(config)) {
    const active = await loadConfiguredKey(config.security.signingKey ?? '', strength, 'security.signing-key');
    return fixedKeyRing(active, await loadPreviousKeys(config.security.previousSigningKeys, strength));
  }
  const ring = storedKeyRing({
    store,
    sealer: createSealer(config.security.keys.encryptionSecret),
    validity: config.security.jwt.accessTokenValidity,
    logger,
    async firstKey() {
      const legacy = await readLegacyGeneratedKey(config.data.dir, strength);
      if (legacy) return { key: legacy, by: actor(`first start, from data.dir/${LEGACY_GENERATED_FILE}`) };
      return { key: await usableKey(generatePrivateKey(DEFAULT_ALG), DEFAULT_ALG), by: actor('first start') };
    },
  });
  await ring.start();
  return ring;
}
