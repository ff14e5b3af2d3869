/**
 * The lifecycle of a lineage of the signing-key set (its access-token keys, or its id_token keys),
 * as pure functions of the lineage's records and the time:
 *
 * - `next`: published and verifying, not signing yet (its `activatesAt` is ahead);
 * - `active`: the one key that signs: of the keys whose `activatesAt` has come, the latest;
 * - `retired`: superseded by a later key; verifies until every token it signed has expired
 *   (`validity` + clock skew after its successor took over), then leaves the set.
 *
 * Records taken out by `keys retire` stay as tombstones while they still order the others, so a
 * retirement never brings an older key back or lengthens another's life.
 */
import { KEY_USES, type KeyAlg, type KeyChange, type KeyRecord, type KeyUse } from '../stores/key-store.ts';
import { CLOCK_SKEW } from './jwt.ts';
import { KeyStoreUnreadableError } from './key-material.ts';

export type KeyState = 'next' | 'active' | 'retired';

export interface KeyView {
  readonly record: KeyRecord;
  readonly state: KeyState;
  /** When it stopped signing (retired keys). */
  readonly retiredAt: number | undefined;
  /** When it leaves the set (retired keys): no token it signed can still be valid then. */
  readonly leavesAt: number | undefined;
}

export interface SetView {
  /** The keys that verify at `at`, oldest activation first. */
  readonly keys: readonly KeyView[];
  readonly active: KeyView | undefined;
  /** The next moment the view changes by time alone (an activation, a key leaving); Infinity if none. */
  readonly changesAt: number;
}

/** Refusals of the key commands; `code` is stable. */
export type KeySetErrorCode = 'keys.unknown_kid' | 'keys.only_signing_key' | 'keys.rotation_pending';

export class KeySetError extends Error {
  override readonly name = 'KeySetError';
  readonly code: KeySetErrorCode;
  constructor(code: KeySetErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

// On a tie of activation times a record taken out goes first, so that a key promoted by the
// retirement of the active one in the second that one activated is still the later of the two.
const byActivation = (a: KeyRecord, b: KeyRecord): number =>
  a.activatesAt - b.activatesAt ||
  Number(a.removedAt === null) - Number(b.removedAt === null) ||
  a.createdAt - b.createdAt ||
  (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0);

interface Placed {
  readonly record: KeyRecord;
  readonly view: KeyView | undefined;
}

/** Algorithms `keys rotate --alg` may generate: asymmetric only, as a MAC key is never published. */
export const GENERATED_ALGS = [
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
] as const satisfies readonly KeyAlg[];
export type GeneratedAlg = (typeof GENERATED_ALGS)[number];
/**
 * The algorithm of a generated key of each lineage: ES256 for access tokens (see docs/security.md
 * for why), RS256 for id_tokens (the one algorithm OpenID Connect Core requires of every provider).
 */
export const DEFAULT_ALGS: { readonly [U in KeyUse]: GeneratedAlg } = { access: 'ES256', id_token: 'RS256' };

/** Every algorithm a record may name: the generated ones, and those of an imported MAC secret. */
const ALGS: ReadonlySet<string> = new Set<KeyAlg>([...GENERATED_ALGS, 'HS256', 'HS384', 'HS512']);

const USES: ReadonlySet<string> = new Set<KeyUse>(KEY_USES);

const isTime = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/** What is wrong with a record as the store gave it (a field missing or of the wrong kind), if anything. */
function damage(r: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof r['alg'] !== 'string' || !ALGS.has(r['alg'])) return 'alg is not an algorithm of the set';
  if (typeof r['use'] !== 'string' || !USES.has(r['use'])) return 'use is neither access nor id_token';
  if (typeof r['secret'] !== 'string' || r['secret'] === '') return 'secret is missing';
  if (!isTime(r['createdAt'])) return 'createdAt is not a time';
  if (!isTime(r['activatesAt'])) return 'activatesAt is not a time';
  if (r['removedAt'] !== null && !isTime(r['removedAt'])) return 'removedAt is neither empty nor a time';
  if (typeof r['createdBy'] !== 'string') return 'createdBy is missing';
  if (r['removedBy'] !== null && typeof r['removedBy'] !== 'string') return 'removedBy is neither empty nor text';
  return undefined;
}

/**
 * Refuses a set with a damaged record: the order of the keys, hence which one signs, rests on
 * every record, so no view of such a set can be trusted. A record is damaged by hand or by a
 * failing disk, never by these functions; it is restored from a backup.
 */
function checkRecords(records: readonly KeyRecord[]): void {
  for (const record of records as readonly unknown[]) {
    const r = (typeof record === 'object' && record !== null ? record : {}) as Readonly<Record<string, unknown>>;
    const kid = r['kid'];
    if (typeof kid !== 'string' || kid === '')
      throw new KeyStoreUnreadableError(
        'a record of the signing-key set is damaged (it has no kid); restore the set from a backup',
      );
    const what = damage(r);
    if (what !== undefined)
      throw new KeyStoreUnreadableError(
        `signing key ${kid} cannot be used: its record is damaged (${what}); restore the record from a backup`,
      );
  }
}

/** Every record with its view at `at` (undefined: it verifies nothing: taken out, or gone). */
function place(records: readonly KeyRecord[], at: number, validity: number): Placed[] {
  checkRecords(records);
  const sorted = [...records].sort(byActivation);
  const started = sorted.filter((r) => r.activatesAt <= at);
  const signer = started.at(-1);
  return sorted.map((record) => {
    if (record.removedAt !== null) return { record, view: undefined };
    if (record.activatesAt > at)
      return { record, view: { record, state: 'next', retiredAt: undefined, leavesAt: undefined } };
    if (record === signer)
      return { record, view: { record, state: 'active', retiredAt: undefined, leavesAt: undefined } };
    const successor = started[started.indexOf(record) + 1] as KeyRecord;
    const retiredAt = successor.activatesAt;
    const leavesAt = retiredAt + validity + CLOCK_SKEW;
    if (leavesAt <= at) return { record, view: undefined };
    return { record, view: { record, state: 'retired', retiredAt, leavesAt } };
  });
}

/** The set as it stands at `at` (epoch seconds), for tokens of at most `validity` seconds. */
export function viewAt(records: readonly KeyRecord[], at: number, validity: number): SetView {
  const keys = place(records, at, validity).flatMap((p) => (p.view ? [p.view] : []));
  const future = records
    .filter((r) => r.removedAt === null)
    .flatMap((r) => [r.activatesAt, ...keys.filter((k) => k.record === r).map((k) => k.leavesAt ?? Infinity)])
    .filter((t) => t > at);
  return {
    keys,
    active: keys.find((k) => k.state === 'active'),
    changesAt: Math.min(Infinity, ...future),
  };
}

/**
 * Records no longer needed: the oldest ones that verify nothing any more, up to the first that
 * still does or still orders the signer. Dropping them changes no other key's view.
 */
function pruned(records: readonly KeyRecord[], at: number, validity: number): KeyRecord[] {
  const placed = place(records, at, validity);
  const signer = placed.filter((p) => p.record.activatesAt <= at).at(-1)?.record;
  const firstKept = placed.findIndex((p) => p.view !== undefined || p.record === signer);
  return placed.slice(firstKept === -1 ? placed.length : firstKept).map((p) => p.record);
}

/** A new key for the set: it signs from `activatesAt` on (set by {@link initialize} or {@link rotate}). */
export type NewKey = Omit<KeyRecord, 'activatesAt' | 'removedAt' | 'removedBy'>;

/** A key joins its own lineage only: the records changed are all of the new key's `use`. */
function sameLineage(records: readonly KeyRecord[], key: NewKey): void {
  const other = records.find((r) => r.use !== key.use);
  if (other) throw new Error(`a key of the ${key.use} lineage cannot join the ${other.use} lineage`);
}

/** The set's first key, active at once, unless the set already has a key that signs or will. */
export function initialize(
  records: readonly KeyRecord[],
  key: NewKey,
  at: number,
  validity: number,
): KeyChange<boolean> {
  sameLineage(records, key);
  const view = viewAt(records, at, validity);
  if (view.keys.length > 0) return { records, result: false };
  return { records: [...records, { ...key, activatesAt: at, removedAt: null, removedBy: null }], result: true };
}

/**
 * Adds `key` as `next`: it becomes active `publishAhead` seconds from `at` (at once when nothing
 * signs yet), and the active key is retired then. One rotation at a time.
 */
export function rotate(
  records: readonly KeyRecord[],
  key: NewKey,
  at: number,
  settings: { readonly validity: number; readonly publishAhead: number },
): KeyChange<KeyRecord> {
  sameLineage(records, key);
  const view = viewAt(records, at, settings.validity);
  const pending = view.keys.find((k) => k.state === 'next');
  if (pending)
    throw new KeySetError(
      'keys.rotation_pending',
      `a rotation is pending: ${pending.record.kid} becomes active at ${iso(pending.record.activatesAt)}`,
    );
  // Strictly after the active key's activation, so that the order of the two never rests on a tie
  // (a publish-ahead of 0 in the second the active key activated).
  const activatesAt = view.active ? Math.max(at + settings.publishAhead, view.active.record.activatesAt + 1) : at;
  const added: KeyRecord = { ...key, activatesAt, removedAt: null, removedBy: null };
  return { records: [...pruned(records, at, settings.validity), added], result: added };
}

/**
 * Takes `kid` out at once. A `next` key is simply dropped; the active key only when a `next` key
 * can take over, which then signs from `at` on.
 */
export function retire(
  records: readonly KeyRecord[],
  kid: string,
  at: number,
  settings: { readonly validity: number; readonly by: string },
): KeyChange<KeyView> {
  const view = viewAt(records, at, settings.validity);
  const target = view.keys.find((k) => k.record.kid === kid);
  if (!target) throw new KeySetError('keys.unknown_kid', `no key ${kid} in the set`);
  const tombstone = (r: KeyRecord): KeyRecord => ({ ...r, removedAt: at, removedBy: settings.by });
  if (target.state === 'next') return { records: records.filter((r) => r.kid !== kid), result: target };
  if (target.state === 'retired')
    return { records: records.map((r) => (r.kid === kid ? tombstone(r) : r)), result: target };
  const successor = view.keys.find((k) => k.state === 'next');
  if (!successor)
    throw new KeySetError(
      'keys.only_signing_key',
      `${kid} is the only signing key; rotate first, then retire it (the new key takes over at once)`,
    );
  const records2 = records.map((r) =>
    r.kid === kid ? tombstone(r) : r.kid === successor.record.kid ? { ...r, activatesAt: at } : r,
  );
  return { records: records2, result: target };
}

export const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();
