import type { Db as MongoDb } from 'mongodb';
import type { KeyRecord, KeyStore, KeyUse } from './key-store.ts';
import { guarded, isDuplicateKey, type Runner } from './mongo.ts';

/** A record as stored: one written before the set had lineages has no `use`, and is an access key. */
export type StoredKey = Omit<KeyRecord, 'use'> & { use?: KeyUse };

/** The whole set in one document, so that a change is one conditional write. */
interface KeySetDoc {
  _id: 'signing-keys';
  /** Bumped by every change: a write conditional on the version read is the compare-and-set. */
  version: number;
  keys: StoredKey[];
}

const ID = 'signing-keys';
/** Writers that lose the compare-and-set read again; this many times at most. */
const ATTEMPTS = 20;

/** The records of the lineage `use` among the stored ones (a record without a `use` is an access key). */
export const lineageRecords = (keys: readonly StoredKey[], use: KeyUse): KeyRecord[] =>
  keys.flatMap((k) => ((k.use ?? 'access') === use ? [{ ...k, use }] : []));

/** The stored records with the lineage `use` replaced by `records`; the other lineage's kept as they are. */
export const withLineage = (keys: readonly StoredKey[], use: KeyUse, records: readonly KeyRecord[]): StoredKey[] => [
  ...keys.filter((k) => (k.use ?? 'access') !== use),
  ...records.map((r) => ({ ...r, use })),
];

/**
 * MongoDB adapter of {@link KeyStore}: collection `signing_keys`, one document holding the set (both
 * lineages), changed with a write conditional on its version (read, change, write if no one wrote
 * between; else again); this store reads and replaces the records of its lineage alone. `changed`
 * says yes once every `syncMs` (`security.revocation-sync-ms`): a change made at one instance is
 * seen by every other within that bound, as revocations are.
 */
export function mongoKeyStore(
  db: MongoDb,
  syncMs: number,
  use: KeyUse = 'access',
  run: Runner = guarded,
  now: () => number = Date.now,
): KeyStore {
  const sets = db.collection<KeySetDoc>('signing_keys');
  let lastLook = -Infinity;
  const read = async (): Promise<KeySetDoc | null> => {
    lastLook = -Infinity;
    const doc = await sets.findOne({ _id: ID });
    lastLook = now();
    return doc;
  };
  return {
    read: () => run(async () => lineageRecords((await read())?.keys ?? [], use)),
    update: (change) =>
      run(async () => {
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
          const doc = await read();
          const stored = doc?.keys ?? [];
          const current = lineageRecords(stored, use);
          const next = change(current);
          if (next.records === current) return next.result;
          const keys = withLineage(stored, use, next.records);
          try {
            if (doc === null) await sets.insertOne({ _id: ID, version: 1, keys });
            else if (
              (await sets.updateOne({ _id: ID, version: doc.version }, { $set: { keys, version: doc.version + 1 } }))
                .matchedCount === 0
            )
              continue;
            lastLook = -Infinity;
            return next.result;
          } catch (error) {
            if (!isDuplicateKey(error)) throw error;
          }
        }
        throw new Error('the key set kept changing under this write; try again');
      }),
    changed: () => now() - lastLook >= syncMs,
  };
}
