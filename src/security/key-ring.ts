/**
 * A process's view of a lineage of signing keys (the access-token keys, or the id_token keys): the
 * key that signs now, and the keys that verify, by kid. A process holds one ring per lineage.
 *
 * With a configured key the ring is fixed: `security.signing-key` signs, and
 * `security.previous-signing-keys` verify. Otherwise the key set in the store is the truth, and
 * other processes (workers, other instances, `npm run keys`) change it: before every use the store
 * is asked whether anything may have changed (SQLite: a counter read; MongoDB: whether
 * `security.revocation-sync-ms` has passed), and if so the set is read again. States follow from
 * the records and the clock alone (`key-set.ts`), so every process switches keys at the same
 * moment without a write: a rotation is published by every process from its next request on, long
 * before its key signs, and a key taken out is refused by every process from its next request on.
 */
import { secondsClock } from './epoch.ts';
import type { Logger } from '../logger.ts';
import type { KeyRecord, KeyStore, KeyUse } from '../stores/key-store.ts';
import { StoreUnavailableError } from '../stores/store-unavailable.ts';
import { KeyStoreUnreadableError, openKeyRecord, type Sealer, type UsableKey } from './key-material.ts';
import { initialize, viewAt, type KeyState, type NewKey, type SetView } from './key-set.ts';

export interface RingKey {
  readonly key: UsableKey;
  readonly state: KeyState;
}

export interface KeyRing {
  /** The lineage of the set the ring serves. */
  readonly use: KeyUse;
  /** True when configuration fixes the keys (`security.signing-key`). */
  readonly configured: boolean;
  /** The key that signs now. */
  signing(): Promise<UsableKey>;
  /** The key with this kid if it verifies now, else undefined. */
  verifying(kid: string): Promise<UsableKey | undefined>;
  /**
   * Whether the key with this kid verifies now, answered at once while the store has nothing new;
   * undefined when the set must be read first (then {@link KeyRing.verifying} answers).
   */
  verifiesNow(kid: string): boolean | undefined;
  /** Every key that verifies now (next, active and retired), with its state. */
  keys(): Promise<readonly RingKey[]>;
  /**
   * Throws when the set cannot be used now (its store cannot be reached, or a record cannot be
   * read: {@link KeyStoreUnreadableError}).
   */
  check(): Promise<void>;
  /** Start-up: gives an empty set its first key. A store that cannot be reached yet is tried again on first use. */
  start(): Promise<void>;
}

/** The ring of configured keys (access tokens'): one signs, the previous ones verify. */
export function fixedKeyRing(active: UsableKey, previous: readonly UsableKey[]): KeyRing {
  const keys: RingKey[] = [
    { key: active, state: 'active' },
    ...previous.filter((k) => k.kid !== active.kid).map((key): RingKey => ({ key, state: 'retired' })),
  ];
  const byKid = new Map(keys.map((k) => [k.key.kid, k.key]));
  return {
    use: 'access',
    configured: true,
    signing: async () => active,
    verifying: async (kid) => byKid.get(kid),
    verifiesNow: (kid) => byKid.has(kid),
    keys: async () => keys,
    check: async () => {},
    start: async () => {},
  };
}

export interface StoredRingOptions {
  /** The lineage of the set: `store` is its store. */
  readonly use: KeyUse;
  readonly store: KeyStore;
  readonly sealer: Sealer;
  /** Token validity (access tokens and id_tokens alike), seconds: how long a retired key keeps verifying. */
  readonly validity: number;
  readonly logger: Logger;
  /** The set's first key, made when the set is empty (a generated key, or an older version's MAC key). */
  readonly firstKey: () => Promise<{ readonly key: UsableKey; readonly by: string }>;
  /** Epoch milliseconds. */
  readonly now?: () => number;
}

/** How to add a key to the lineage `use`, for the messages that ask for one. */
const rotateCommand = (use: KeyUse): string => `npm run keys -- rotate${use === 'access' ? '' : ` --use ${use}`}`;

/** The ring over a lineage of the key set in the store. */
export function storedKeyRing(options: StoredRingOptions): KeyRing {
  const { use, store, sealer, validity } = options;
  // Every line of the ring names its lineage.
  const logger = options.logger.child({ use });
  const nowSeconds = secondsClock(options.now);
  /** Each key opened, with the record fields it was opened from: a record changed in the store is opened again. */
  const usable = new Map<string, { readonly secret: string; readonly alg: string; readonly key: UsableKey }>();
  let records: readonly KeyRecord[] = [];
  let view: SetView | undefined;
  let byKid = new Map<string, RingKey>();
  let stale = true;
  let loading: Promise<SetView> | undefined;
  /** Once started, a set that cannot be used is logged once per problem (at start-up the caller reports it). */
  let started = false;
  let problem: string | undefined;

  const opened = (r: KeyRecord): boolean => {
    const held = usable.get(r.kid);
    return held !== undefined && held.secret === r.secret && held.alg === r.alg;
  };

  const unusable = (error: unknown): never => {
    if (started && error instanceof KeyStoreUnreadableError && error.message !== problem) {
      problem = error.message;
      logger.error(
        { problem },
        'the signing-key set cannot be used: nothing is signed or accepted until it is put right',
      );
    }
    throw error;
  };

  const usableAgain = (next: SetView): SetView => {
    if (problem !== undefined) {
      problem = undefined;
      logger.info('the signing-key set can be used again');
    }
    return next;
  };

  const compute = (at: number): SetView => {
    const next = viewAt(records, at, validity);
    logTransitions(logger, view, next, records);
    view = next;
    byKid = new Map(
      next.keys.flatMap((k) => {
        const key = usable.get(k.record.kid)?.key;
        return key ? [[k.record.kid, { key, state: k.state }] as const] : [];
      }),
    );
    return next;
  };

  const load = (): Promise<SetView> => {
    loading ??= (async () => {
      stale = true;
      const read = await store.read();
      const live = viewAt(read, nowSeconds(), validity).keys.filter((k) => !opened(k.record));
      for (const { record } of live)
        usable.set(record.kid, { secret: record.secret, alg: record.alg, key: await openKeyRecord(record, sealer) });
      records = read;
      stale = false;
      return compute(nowSeconds());
    })()
      .then(usableAgain, unusable)
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };

  /**
   * The view now, recomputed when time moved it on, while the store has nothing new; undefined
   * when the set must be read again first (a change the store reported marks the view stale).
   */
  const currentNow = (): SetView | undefined => {
    if (store.changed()) stale = true;
    if (stale || view === undefined || loading) return undefined;
    const at = nowSeconds();
    return at >= view.changesAt ? compute(at) : view;
  };

  /** The view now: read again when the store may have changed. */
  const current = (): Promise<SetView> => {
    const known = currentNow();
    if (known) return Promise.resolve(known);
    if (!stale && view !== undefined && loading) return loading;
    return loading ? loading.then(load, load) : load();
  };

  const ensureFirst = async (): Promise<void> => {
    if ((await current()).keys.length > 0) return;
    const { key, by } = await options.firstKey();
    const secret = sealer.seal(JSON.stringify(key.signKey.export({ format: 'jwk' })), key.kid);
    const record: NewKey = { kid: key.kid, alg: key.alg, use, secret, createdAt: nowSeconds(), createdBy: by };
    const made = await store.update((now) => initialize(now, record, nowSeconds(), validity));
    if (made) usable.set(key.kid, { secret, alg: key.alg, key });
    stale = true;
  };

  return {
    use,
    configured: false,
    async signing() {
      let active = (await current()).active;
      if (!active) {
        await ensureFirst();
        active = (await current()).active;
      }
      const key = active && byKid.get(active.record.kid)?.key;
      if (!key)
        throw new KeyStoreUnreadableError(
          `the signing-key set has no active ${use} key; add one: ${rotateCommand(use)}`,
        );
      return key;
    },
    async verifying(kid) {
      await current();
      return byKid.get(kid)?.key;
    },
    verifiesNow: (kid) => (currentNow() === undefined ? undefined : byKid.has(kid)),
    async keys() {
      await current();
      return [...byKid.values()];
    },
    async check() {
      await current();
    },
    async start() {
      try {
        await ensureFirst();
        await current();
      } catch (error) {
        // A set that is read but cannot be used stops the start: no process runs on it.
        if (!(error instanceof StoreUnavailableError) || error instanceof KeyStoreUnreadableError) throw error;
        logger.warn({ err: error.message }, 'the key set cannot be read yet; trying again on first use');
      }
      started = true;
    },
  };
}

/** One log line per key whose state changed, with what caused it; the whole set once at first. */
function logTransitions(
  logger: Logger,
  before: SetView | undefined,
  after: SetView,
  records: readonly KeyRecord[],
): void {
  const summary = (v: SetView) => v.keys.map((k) => ({ kid: k.record.kid, alg: k.record.alg, state: k.state }));
  if (before === undefined) {
    logger.info({ keys: summary(after) }, 'signing keys loaded');
    return;
  }
  const was = new Map(before.keys.map((k) => [k.record.kid, k.state]));
  const is = new Map(after.keys.map((k) => [k.record.kid, k.state]));
  const record = (kid: string) => records.find((r) => r.kid === kid);
  const retiredBy = records.find((r) => r.removedAt !== null && was.get(r.kid) === 'active')?.removedBy;
  for (const k of after.keys) {
    const { kid, alg } = k.record;
    const from = was.get(kid);
    if (from === k.state) continue;
    const cause =
      from === undefined
        ? `added by ${k.record.createdBy}`
        : k.state === 'active'
          ? retiredBy
            ? `the active key was retired by ${retiredBy}`
            : 'its publish-ahead time has passed'
          : `superseded by ${after.active?.record.kid ?? 'no key'}`;
    logger.info({ kid, alg, from: from ?? null, to: k.state, cause }, `signing key ${kid} is ${k.state}`);
  }
  for (const [kid, from] of was) {
    if (is.has(kid)) continue;
    const r = record(kid);
    const cause = r?.removedBy ? `retired at once by ${r.removedBy}` : 'every token it signed has expired';
    logger.info({ kid, from, to: 'gone', cause }, `signing key ${kid} left the set`);
  }
}
