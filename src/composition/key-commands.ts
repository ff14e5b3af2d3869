/**
 * What `npm run keys` does to the key set, apart from its arguments and output: list, rotate,
 * retire, each one read or one atomic change of a lineage of the set in the store the server uses.
 */
import { epochSeconds } from '../security/epoch.ts';
import type { Config } from '../config.ts';
import {
  createSealer,
  generatePrivateKey,
  openKeyRecord,
  privateJwkJson,
  usableKey,
} from '../security/key-material.ts';
import { DEFAULT_ALGS, iso, retire, rotate, viewAt, type GeneratedAlg, type KeyState } from '../security/key-set.ts';
import type { KeyAlg, KeyStore, KeyUse } from '../stores/key-store.ts';

/** One key as `keys list` shows it; times are ISO 8601. */
export interface ListedKey {
  readonly kid: string;
  readonly alg: KeyAlg;
  /** Its lineage: access tokens, or id_tokens. */
  readonly use: KeyUse;
  readonly state: KeyState;
  readonly created: string;
  /** When it signs (next), signed from (active) or stopped signing (retired). */
  readonly activates: string;
  /** When a retired key leaves the set. */
  readonly leaves: string | null;
  readonly createdBy: string;
}

export interface KeyCommandSettings {
  /** Access-token validity, seconds. */
  readonly validity: number;
  readonly publishAhead: number;
  readonly encryptionSecret: string | undefined;
}

export const commandSettings = (config: Config): KeyCommandSettings => ({
  validity: config.security.jwt.accessTokenValidity,
  publishAhead: config.security.keys.publishAheadSeconds,
  encryptionSecret: config.security.keys.encryptionSecret,
});

const seconds = epochSeconds;

/**
 * The keys of the lineage in `store` that verify now, oldest activation first. Each is opened as a
 * server opens it, so a key a server could not use is refused here too, naming it (`rotate` and
 * `retire` still work: they are how it is taken out).
 */
export async function listKeys(
  store: KeyStore,
  settings: KeyCommandSettings,
  nowMs = Date.now(),
): Promise<ListedKey[]> {
  const { keys } = viewAt(await store.read(), seconds(nowMs), settings.validity);
  const sealer = createSealer(settings.encryptionSecret);
  for (const k of keys) await openKeyRecord(k.record, sealer);
  return keys.map((k) => ({
    kid: k.record.kid,
    alg: k.record.alg,
    use: k.record.use,
    state: k.state,
    created: iso(k.record.createdAt),
    activates: iso(k.state === 'retired' ? (k.retiredAt ?? k.record.activatesAt) : k.record.activatesAt),
    leaves: k.leavesAt === undefined ? null : iso(k.leavesAt),
    createdBy: k.record.createdBy,
  }));
}

/**
 * Adds a new `alg` key (the lineage's default when none is named) as `next` of the lineage `use`
 * (access unless named), whose store `store` is; it signs `publishAhead` seconds from now. Answers
 * its kid and activation.
 */
export async function rotateKeys(
  store: KeyStore,
  settings: KeyCommandSettings & { readonly alg?: GeneratedAlg; readonly use?: KeyUse; readonly by: string },
  nowMs = Date.now(),
): Promise<{ kid: string; alg: KeyAlg; activates: string; now: boolean }> {
  const use = settings.use ?? 'access';
  const alg = settings.alg ?? DEFAULT_ALGS[use];
  const key = await usableKey(generatePrivateKey(alg), alg);
  const secret = createSealer(settings.encryptionSecret).seal(privateJwkJson(key.signKey), key.kid);
  const at = seconds(nowMs);
  const added = await store.update((records) =>
    rotate(records, { kid: key.kid, alg, use, secret, createdAt: at, createdBy: settings.by }, at, settings),
  );
  return { kid: added.kid, alg, activates: iso(added.activatesAt), now: added.activatesAt <= at };
}

/** Takes `kid` out of the lineage in `store` at once. Answers the state it was in. */
export async function retireKey(
  store: KeyStore,
  kid: string,
  settings: KeyCommandSettings & { readonly by: string },
  nowMs = Date.now(),
): Promise<KeyState> {
  const view = await store.update((records) => retire(records, kid, seconds(nowMs), settings));
  return view.state;
}
