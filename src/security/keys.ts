/** The signing key of access tokens: configured, or generated once into the data directory. */
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { ConfigError } from '../config.ts';

export type MacAlg = 'HS256' | 'HS384' | 'HS512';

/** A MAC key: it signs and verifies, and is never disclosed. */
export interface SigningKey {
  readonly kind: 'mac';
  readonly alg: MacAlg;
  /** RFC 7638 thumbprint: stable for one key, changes when the key does. */
  readonly kid: string;
  readonly signKey: KeyObject;
  readonly verifyKey: KeyObject;
  /** True when the key was generated for development. */
  readonly generated: boolean;
}

export interface KeySettings {
  readonly signingKey: string | undefined;
  readonly encodingStrength: 256 | 384 | 512;
  readonly dataDir: string;
}

const GENERATED_FILE = 'signing.key';

function readConfigured(value: string): string {
  if (!value.startsWith('file:')) return value;
  const path = value.slice('file:'.length);
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigError(`Invalid configuration: security.signing-key: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Reads `dataDir/signing.key`, creating it (mode 0600) on first start. */
function generatedSecret(dataDir: string, onGenerated: (path: string) => void): string {
  const path = join(dataDir, GENERATED_FILE);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(64).toString('base64url');
  writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  onGenerated(path);
  return secret;
}

async function macKey(secret: string, strength: 256 | 384 | 512, generated: boolean): Promise<SigningKey> {
  const bytes = Buffer.from(secret, 'utf8');
  if (bytes.length < strength / 8) {
    throw new ConfigError(`Invalid configuration: security.signing-key: a MAC key for HS${strength} needs at least ${strength / 8} bytes (got ${bytes.length})`);
  }
  const key = createSecretKey(bytes);
  const kid = await calculateJwkThumbprint({ kty: 'oct', k: bytes.toString('base64url') });
  return { kind: 'mac', alg: `HS${strength}`, kid, signKey: key, verifyKey: key, generated };
}

/**
 * Loads the configured key (inline or `file:PATH`), or the generated development key.
 * `onGenerated` is told the path of a newly generated key, never the key.
 */
export async function loadSigningKey(settings: KeySettings, onGenerated: (path: string) => void = () => {}): Promise<SigningKey> {
  if (settings.signingKey === undefined || settings.signingKey.trim() === '') {
    return macKey(generatedSecret(settings.dataDir, onGenerated), settings.encodingStrength, true);
  }
  const value = readConfigured(settings.signingKey);
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(value)) {
    throw new ConfigError('Invalid configuration: security.signing-key: RSA keys are not supported by this version; use a MAC secret');
  }
  return macKey(value, settings.encodingStrength, false);
}
