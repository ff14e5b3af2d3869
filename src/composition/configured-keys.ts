/**
 * Configured signing keys: `security.signing-key` (the one active key) and
 * `security.previous-signing-keys` (keys that verify only), each a MAC secret or a private key
 * (RSA or EC) in PEM (PKCS#1, SEC1, PKCS#8) or OpenSSH format, inline or as `file:PATH`. And the
 * MAC key an older version generated into the data directory, which the key set takes over.
 */
import { createPrivateKey, createSecretKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sshpk from 'sshpk';
import { ConfigError } from '../config.ts';
import type { KeyAlg } from '../stores/key-store.ts';
import { usableKey, type UsableKey } from '../security/key-material.ts';

export type Strength = 256 | 384 | 512;

/** The file an older version generated its development MAC key into. */
export const LEGACY_GENERATED_FILE = 'signing.key';
const MIN_RSA_BITS = 2048;
const EC_ALGS: Readonly<Record<string, KeyAlg>> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

const PEM_BEGIN = '-----BEGIN ';

/** The first line of a PEM block with this label, such as `OPENSSH PRIVATE KEY`. */
export const pemHeader = (label: string): string => `${PEM_BEGIN}${label}-----`;

const invalid = (property: string, why: string): ConfigError =>
  new ConfigError(`Invalid configuration: ${property}: ${why}`);

function readConfigured(value: string, property: string): string {
  if (!value.startsWith('file:'))
    return value.includes(PEM_BEGIN) && !value.includes('\n') ? value.replaceAll('\\n', '\n') : value;
  const path = value.slice('file:'.length);
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw invalid(property, `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function macKey(secret: string, strength: Strength, property: string): Promise<UsableKey> {
  const bytes = Buffer.from(secret, 'utf8');
  if (bytes.length < strength / 8)
    throw invalid(property, `a MAC key for HS${strength} needs at least ${strength / 8} bytes (got ${bytes.length})`);
  return usableKey(createSecretKey(bytes), `HS${strength}`);
}

/** PEM PKCS#1/SEC1/PKCS#8 directly; OpenSSH through sshpk (Node's OpenSSL cannot read it). */
function parsePrivateKey(pem: string, property: string): KeyObject {
  let openssh: sshpk.PrivateKey | undefined;
  try {
    if (!pem.includes(pemHeader('OPENSSH PRIVATE KEY'))) return createPrivateKey(pem);
    openssh = sshpk.parsePrivateKey(pem, 'ssh');
  } catch (error) {
    const encrypted = /encrypted|passphrase/i.test(String(error));
    throw invalid(
      property,
      encrypted ? 'encrypted private keys are not supported; remove the passphrase' : 'not a readable private key',
    );
  }
  if (openssh.type !== 'rsa' && openssh.type !== 'ecdsa')
    throw invalid(property, `must be an RSA or EC key (got ${openssh.type})`);
  return createPrivateKey(openssh.toString('pkcs8'));
}

function asymmetricAlg(key: KeyObject, strength: Strength, property: string): KeyAlg {
  if (key.asymmetricKeyType === 'rsa') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS) throw invalid(property, `an RSA key needs at least ${MIN_RSA_BITS} bits (got ${bits})`);
    return `RS${strength}`;
  }
  const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
  const alg = key.asymmetricKeyType === 'ec' ? EC_ALGS[curve] : undefined;
  if (alg === undefined)
    throw invalid(
      property,
      `must be an RSA or EC (P-256, P-384, P-521) key (got ${key.asymmetricKeyType ?? 'unknown'})`,
    );
  return alg;
}

/**
 * One configured key. RSA signs with RS256/384/512 by `security.encoding-strength`, a MAC secret
 * with HS256/384/512; an EC key with the algorithm of its curve.
 */
export async function loadConfiguredKey(value: string, strength: Strength, property: string): Promise<UsableKey> {
  const text = readConfigured(value, property);
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    const key = parsePrivateKey(text, property);
    return usableKey(key, asymmetricAlg(key, strength, property));
  }
  if (text.startsWith('ssh-') || text.startsWith('ecdsa-') || text.includes('PUBLIC KEY-----'))
    throw invalid(property, 'a public key cannot sign; configure the private key');
  return macKey(text, strength, property);
}

/** `security.previous-signing-keys`: comma-separated, each as `security.signing-key` takes it. */
export function loadPreviousKeys(value: string | undefined, strength: Strength): Promise<UsableKey[]> {
  const items = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return Promise.all(items.map((item) => loadConfiguredKey(item, strength, 'security.previous-signing-keys')));
}

/** The MAC key an older version generated into `dataDir`, if there is one. */
export async function readLegacyGeneratedKey(dataDir: string, strength: Strength): Promise<UsableKey | undefined> {
  const path = join(dataDir, LEGACY_GENERATED_FILE);
  if (!existsSync(path)) return undefined;
  return macKey(readFileSync(path, 'utf8').trim(), strength, `${path} (the generated key of an older version)`);
}
