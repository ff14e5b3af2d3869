/**
 * The signing key of access tokens: a MAC secret, or an RSA private key in PEM (PKCS#1, PKCS#8) or
 * OpenSSH format, configured inline or as `file:PATH`; without one, a MAC key generated once into
 * the data directory.
 */
import { createPrivateKey, createPublicKey, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import sshpk from 'sshpk';
import { ConfigError } from '../config.ts';

export type MacAlg = 'HS256' | 'HS384' | 'HS512';
export type RsaAlg = 'RS256' | 'RS384' | 'RS512';

interface KeyBase {
  /** RFC 7638 thumbprint: stable for one key, changes when the key does. */
  readonly kid: string;
  readonly signKey: KeyObject;
  readonly verifyKey: KeyObject;
}

/** A MAC key signs and verifies, and is never disclosed. */
export interface MacKey extends KeyBase {
  readonly kind: 'mac';
  readonly alg: MacAlg;
  /** True when the key was generated for development. */
  readonly generated: boolean;
}

/** An RSA key pair: the public half is published (JWKS, token_key). */
export interface RsaKey extends KeyBase {
  readonly kind: 'rsa';
  readonly alg: RsaAlg;
  readonly generated: false;
  /** The public key as a JWK with `kid`, `alg` and `use`. */
  readonly publicJwk: JWK;
  /** The public key as PEM (SPKI). */
  readonly publicPem: string;
}

export type SigningKey = MacKey | RsaKey;

export interface KeySettings {
  readonly signingKey: string | undefined;
  readonly encodingStrength: 256 | 384 | 512;
  readonly dataDir: string;
}

const GENERATED_FILE = 'signing.key';
const MIN_RSA_BITS = 2048;

const PEM_BEGIN = '-----BEGIN ';

/** The first line of a PEM block with this label, such as `OPENSSH PRIVATE KEY`. */
export const pemHeader = (label: string): string => `${PEM_BEGIN}${label}-----`;

const invalid = (why: string): ConfigError => new ConfigError(`Invalid configuration: security.signing-key: ${why}`);

function readConfigured(value: string): string {
  if (!value.startsWith('file:'))
    return value.includes(PEM_BEGIN) && !value.includes('\n') ? value.replaceAll('\\n', '\n') : value;
  const path = value.slice('file:'.length);
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw invalid(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * Reads `dataDir/signing.key`, creating it (mode 0600) on first start. Several processes may start
 * together on one data directory: the key is written to a file of this process's own and linked
 * into place, which only one of them can do (`link` fails when the name exists), so every process
 * reads the one complete key.
 */
function generatedSecret(dataDir: string, onGenerated: (path: string) => void): string {
  const path = join(dataDir, GENERATED_FILE);
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    const draft = join(dataDir, `.${GENERATED_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
    writeFileSync(draft, `${randomBytes(64).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, path);
      onGenerated(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(draft);
    }
  }
  return readFileSync(path, 'utf8').trim();
}

async function macKey(secret: string, strength: 256 | 384 | 512, generated: boolean): Promise<MacKey> {
  const bytes = Buffer.from(secret, 'utf8');
  if (bytes.length < strength / 8)
    throw invalid(`a MAC key for HS${strength} needs at least ${strength / 8} bytes (got ${bytes.length})`);
  const key = createSecretKey(bytes);
  const kid = await calculateJwkThumbprint({ kty: 'oct', k: bytes.toString('base64url') });
  return { kind: 'mac', alg: `HS${strength}`, kid, signKey: key, verifyKey: key, generated };
}

/** PEM PKCS#1/PKCS#8 directly; OpenSSH through sshpk (Node's OpenSSL cannot read it). */
function parsePrivateKey(pem: string): KeyObject {
  let openssh: sshpk.PrivateKey | undefined;
  try {
    if (!pem.includes(pemHeader('OPENSSH PRIVATE KEY'))) return createPrivateKey(pem);
    openssh = sshpk.parsePrivateKey(pem, 'ssh');
  } catch (error) {
    const encrypted = /encrypted|passphrase/i.test(String(error));
    throw invalid(
      encrypted ? 'encrypted private keys are not supported; remove the passphrase' : 'not a readable private key',
    );
  }
  if (openssh.type !== 'rsa') throw invalid(`must be an RSA key (got ${openssh.type})`);
  return createPrivateKey(openssh.toString('pkcs8'));
}

async function rsaKey(pem: string, strength: 256 | 384 | 512): Promise<RsaKey> {
  const signKey = parsePrivateKey(pem);
  if (signKey.asymmetricKeyType !== 'rsa')
    throw invalid(`must be an RSA key (got ${signKey.asymmetricKeyType ?? 'unknown'})`);
  const bits = signKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) throw invalid(`an RSA key needs at least ${MIN_RSA_BITS} bits (got ${bits})`);
  const verifyKey = createPublicKey(signKey);
  const jwk = await exportJWK(verifyKey);
  const kid = await calculateJwkThumbprint(jwk);
  const alg: RsaAlg = `RS${strength}`;
  return {
    kind: 'rsa',
    alg,
    kid,
    signKey,
    verifyKey,
    generated: false,
    publicJwk: { ...jwk, kid, alg, use: 'sig' },
    publicPem: verifyKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/**
 * Loads the configured key, or the generated development key. `onGenerated` is told the path of a
 * newly generated key, never the key.
 */
export async function loadSigningKey(
  settings: KeySettings,
  onGenerated: (path: string) => void = () => {},
): Promise<SigningKey> {
  if (settings.signingKey === undefined || settings.signingKey.trim() === '') {
    return macKey(generatedSecret(settings.dataDir, onGenerated), settings.encodingStrength, true);
  }
  const value = readConfigured(settings.signingKey);
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(value)) return rsaKey(value, settings.encodingStrength);
  if (value.startsWith('ssh-') || value.includes('PUBLIC KEY-----'))
    throw invalid('a public key cannot sign; configure the private key');
  return macKey(value, settings.encodingStrength, false);
}
