/**
 * Keys as the signer and verifier use them, from whichever source: a generated key of the set
 * (stored as a private JWK, sealed when `security.keys.encryption-secret` is set) or a configured
 * PEM/OpenSSH key or MAC secret (`keys.ts`).
 */
import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  randomBytes,
  scryptSync,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { KeyAlg, KeyRecord, KeyUse } from '../stores/key-store.ts';
import { StoreUnavailableError } from '../stores/store-unavailable.ts';

/** A key ready to sign and verify. */
export interface UsableKey {
  /** RFC 7638 thumbprint of the (public) key. */
  readonly kid: string;
  readonly alg: KeyAlg;
  readonly signKey: KeyObject;
  readonly verifyKey: KeyObject;
  /** The public key as a JWK with `kid`, `alg` and `use`; undefined for a MAC key, which is never disclosed. */
  readonly publicJwk: JWK | undefined;
  /** The public key as PEM (SPKI); undefined for a MAC key. */
  readonly publicPem: string | undefined;
}

const CURVES = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' } as const;
const RSA_BITS = 3072;

/** The usable form of a private key (or a MAC secret) for `alg`. */
export async function usableKey(signKey: KeyObject, alg: KeyAlg): Promise<UsableKey> {
  if (signKey.type === 'secret') {
    const kid = await calculateJwkThumbprint({ kty: 'oct', k: signKey.export().toString('base64url') });
    return { kid, alg, signKey, verifyKey: signKey, publicJwk: undefined, publicPem: undefined };
  }
  const verifyKey = createPublicKey(signKey);
  const jwk = await exportJWK(verifyKey);
  const kid = await calculateJwkThumbprint(jwk);
  return {
    kid,
    alg,
    signKey,
    verifyKey,
    publicJwk: { ...jwk, kid, alg, use: 'sig' },
    publicPem: verifyKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A new private key for `alg`: EC on the algorithm's curve, or RSA of 3072 bits. */
export function generatePrivateKey(alg: keyof typeof CURVES | 'RS256' | 'RS384' | 'RS512'): KeyObject {
  if (alg === 'ES256' || alg === 'ES384' || alg === 'ES512')
    return generateKeyPairSync('ec', { namedCurve: CURVES[alg] }).privateKey;
  return generateKeyPairSync('rsa', { modulusLength: RSA_BITS }).privateKey;
}

/** The private key (or secret) as JWK JSON: the form the key set stores. */
export function privateJwkJson(key: KeyObject): string {
  return JSON.stringify(key.export({ format: 'jwk' }));
}

/** The key stored as JWK JSON. Throws on anything else. */
export function keyFromJwkJson(json: string): KeyObject {
  const jwk = JSON.parse(json) as JsonWebKey & { kty?: string; k?: string };
  if (jwk.kty === 'oct') {
    if (typeof jwk.k !== 'string') throw new Error('a stored MAC key has no k');
    return createSecretKey(Buffer.from(jwk.k, 'base64url'));
  }
  return createPrivateKey({ key: jwk, format: 'jwk' });
}

/**
 * The key set in the store cannot be used: a missing or wrong encryption secret, or a damaged
 * record. Its message is one line naming the key, what is wrong and what to do, never key
 * material. Like a store that cannot be reached, it is answered 503 with Retry-After (a process
 * signs nothing and accepts nothing meanwhile) until the set is put right; at start-up, it stops
 * the start.
 */
export class KeyStoreUnreadableError extends StoreUnavailableError {
  override readonly name = 'KeyStoreUnreadableError';
}

/** What to do about a key of the lineage `use` whose private part cannot be used. */
const takeOut = (kid: string, use: KeyUse): string => {
  const lineage = use === 'access' ? '' : ` --use ${use}`;
  return `restore its record from a backup, or take the key out: npm run keys -- retire ${kid}${lineage} (npm run keys -- rotate${lineage} first when it is the only signing key)`;
};

const SEALED = 'sealed:v1:';
const SALT = 16;
const IV = 12;
const TAG = 16;

/**
 * Seals and opens stored private keys with AES-256-GCM under a key derived from the secret by
 * scrypt (a salt per record); the kid is authenticated too, so a sealed key cannot be passed off
 * under another record's kid. Without a secret, keys are stored as they are.
 */
export function createSealer(secret: string | undefined) {
  const derived = new Map<string, Buffer>();
  const keyFor = (pass: string, salt: Buffer): Buffer => {
    const id = salt.toString('hex');
    let key = derived.get(id);
    if (key === undefined) {
      key = scryptSync(pass, salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
      derived.set(id, key);
    }
    return key;
  };
  return {
    encrypts: secret !== undefined,
    seal(plain: string, kid: string): string {
      if (secret === undefined) return plain;
      const salt = randomBytes(SALT);
      const iv = randomBytes(IV);
      const cipher = createCipheriv('aes-256-gcm', keyFor(secret, salt), iv).setAAD(Buffer.from(kid));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${SEALED}${Buffer.concat([salt, iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    /** The stored key `kid` (of the lineage `use`, which a refusal names) opened. */
    open(stored: string, kid: string, use: KeyUse = 'access'): string {
      if (!stored.startsWith(SEALED)) return stored;
      if (secret === undefined)
        throw new KeyStoreUnreadableError(
          `signing key ${kid} is sealed and security.keys.encryption-secret is not set; set it to the secret the key was sealed with`,
        );
      const raw = Buffer.from(stored.slice(SEALED.length), 'base64url');
      const salt = raw.subarray(0, SALT);
      const iv = raw.subarray(SALT, SALT + IV);
      const tag = raw.subarray(SALT + IV, SALT + IV + TAG);
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(secret, salt), iv).setAAD(Buffer.from(kid));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(raw.subarray(SALT + IV + TAG)), decipher.final()]).toString('utf8');
      } catch {
        throw new KeyStoreUnreadableError(
          `signing key ${kid} cannot be decrypted: security.keys.encryption-secret is not the one it was sealed with, or its record is damaged; set that secret, or ${takeOut(kid, use)}`,
        );
      }
    },
  };
}

export type Sealer = ReturnType<typeof createSealer>;

/** The curve of each EC algorithm, as Node names it (`asymmetricKeyDetails.namedCurve`). */
const NAMED_CURVES: Readonly<Partial<Record<KeyAlg, string>>> = {
  ES256: 'prime256v1',
  ES384: 'secp384r1',
  ES512: 'secp521r1',
};

/** Whether `key` can sign with `alg`: a MAC key with HS*, RSA with RS*, EC on the algorithm's curve. */
function fits(key: KeyObject, alg: KeyAlg): boolean {
  if (key.type === 'secret') return alg.startsWith('HS');
  if (key.asymmetricKeyType === 'rsa') return alg.startsWith('RS');
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === NAMED_CURVES[alg];
}

const kindOf = (key: KeyObject): string => {
  if (key.type === 'secret') return 'a MAC key';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return `an ${(key.asymmetricKeyType ?? 'unknown').toUpperCase()} key${curve === undefined ? '' : ` on ${curve}`}`;
};

/**
 * The usable key of a record of the set: opened with the sealer, parsed, and checked against the
 * record's algorithm and kid. Whatever is wrong is a {@link KeyStoreUnreadableError} naming the
 * key and what to do, never the failure's own text (which could quote the record).
 */
export async function openKeyRecord(record: KeyRecord, sealer: Sealer): Promise<UsableKey> {
  const { kid, alg, use } = record;
  const unusable = (what: string): KeyStoreUnreadableError =>
    new KeyStoreUnreadableError(`signing key ${kid} cannot be used: ${what}; ${takeOut(kid, use)}`);
  const json = sealer.open(record.secret, kid, use);
  let signKey: KeyObject;
  try {
    signKey = keyFromJwkJson(json);
  } catch (error) {
    throw unusable(
      error instanceof SyntaxError ? 'its private key is not JSON' : 'its private key is not a usable JWK',
    );
  }
  if (!fits(signKey, alg)) throw unusable(`its algorithm ${alg} does not fit its key (${kindOf(signKey)})`);
  const key = await usableKey(signKey, alg);
  if (key.kid !== kid) throw unusable(`its private key is another key (${key.kid})`);
  return key;
}
