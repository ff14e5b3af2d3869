import type { Db as MongoDb } from 'mongodb';
import type { KeyRecord, KeyStore } from './key-store.ts';
import { guarded, isDuplicateKey, type Runner } from './mongo.ts';

/** The whole set in one document, so that a change is one conditional write. */
interface KeySetDoc {
  _id: 'signing-keys';
  /** Bumped by every change: a write conditional on the version read is the compare-and-set. */
  version: number;
  keys: KeyRecord[];
}

const ID = 'signing-keys';
/** Writers that lose the compare-and-set read again; this many times at most. */
const ATTEMPTS = 20;

/**
 * MongoDB adapter of {@link KeyStore}: collection `signing_keys`, one document holding the set,
 * changed with a write conditional on its version (read, change, write if no one wrote between;
 * else again). `changed` says yes once every `syncMs` (`security.revocation-sync-ms`): a change
 * made at one instance is seen by every other within that bound, as revocations are.
 */
export function mongoKeyStore(
  db: MongoDb,
  syncMs: number,
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
    read: () => run(async () => (await read())?.keys ?? []),
    update: (change) =>
      run(async () => {
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
          const doc = await read();
          const current = doc?.keys ?? [];
          const next = change(current);
          if (next.records === current) return next.result;
          const keys = [...next.records];
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
