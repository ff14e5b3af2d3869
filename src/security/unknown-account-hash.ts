/**
 * The hash a password is compared against when no account has the username given, so that a
 * login for an account that does not exist costs the BCrypt work a real account's costs.
 *
 * A comparison costs what its hash's cost says (the work doubles with each step), and the stored
 * hashes keep the cost they were made at: `security.password.bcrypt-cost` applies only to
 * passwords set after it. So the dummy hash is made at the cost most stored hashes have, read
 * from their `$2b$NN$` prefix; the configured cost is used until the store is first read, while
 * it has no hash or cannot be read, and when it ties. Several processes share the store, and
 * accounts are created and their passwords set while the service runs, so the choice follows the
 * store's change count (moved by every change to an account, in any process): every lookup of an
 * unknown username starts a check of the count, and the hashes are read again when it has moved.
 *
 * The lookup itself never waits for that check, for the store or for BCrypt: it is answered at
 * once with the hash chosen at the last check, and the check runs after it (its store reads
 * then overlap the comparison on the worker pool). An unknown username thus costs no store read
 * that a known one skips; a change of the prevailing cost is followed from the next such lookup
 * on. One dummy hash is made per cost, on the worker pool, and kept.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AccountStore } from '../stores/account-store.ts';
import { costOf, type PasswordHasher } from './passwords.ts';

/** The costs BCrypt (bcryptjs) can compute; a hash claiming another is not counted. */
const MIN_COST = 4;
const MAX_COST = 31;

export interface UnknownAccountHashDeps {
  readonly accounts: Pick<AccountStore, 'changeCount' | 'listAll'>;
  readonly passwords: Pick<PasswordHasher, 'hash'>;
  /** `security.password.bcrypt-cost`. */
  readonly configuredCost: number;
  /** A check that failed; the hash in use stays, and the next lookup checks again. */
  readonly onError: (error: unknown) => void;
}

export interface UnknownAccountHash {
  /** The hash to compare against now; starts a check of the store, not awaited. */
  readonly current: () => string;
  /** Resolves (never rejects) once no check is under way. */
  readonly settled: () => Promise<void>;
}

/**
 * The cost most of `hashes` have; `preferred` when none has a cost, or when it is among the most
 * frequent ones (otherwise the highest of those).
 */
export function prevailingCost(hashes: Iterable<string>, preferred: number): number {
  const counts = new Map<number, number>();
  for (const hash of hashes) {
    const cost = costOf(hash);
    if (cost !== undefined && cost >= MIN_COST && cost <= MAX_COST) counts.set(cost, (counts.get(cost) ?? 0) + 1);
  }
  let best = preferred;
  let most = counts.get(preferred) ?? 0;
  for (const [cost, n] of counts) {
    if (n > most || (n === most && best !== preferred && cost > best)) {
      best = cost;
      most = n;
    }
  }
  return best;
}

interface Chosen {
  /** The change count the hash was chosen at; undefined until the store has been read. */
  readonly count: number | undefined;
  readonly hash: string;
}

/**
 * Starts with a dummy hash at the configured cost (made before it resolves, as a start-up
 * would) and a first check of the store in the background.
 */
export async function createUnknownAccountHash(deps: UnknownAccountHashDeps): Promise<UnknownAccountHash> {
  const made = new Map<number, Promise<string>>();
  const dummyAt = (cost: number): Promise<string> => {
    let hash = made.get(cost);
    if (hash === undefined) {
      hash = deps.passwords.hash(randomBytes(16).toString('hex'), cost);
      made.set(cost, hash);
      hash.catch(() => made.delete(cost));
    }
    return hash;
  };

  let chosen: Chosen = { count: undefined, hash: await dummyAt(deps.configuredCost) };
  let checking: Promise<void> | undefined;

  const check = async (): Promise<void> => {
    // After the turn that asked: the comparison is on its way before any store read.
    await nextTurn();
    // Read before the hashes, so a choice is never newer than the count it is kept under.
    const count = await deps.accounts.changeCount();
    if (count === chosen.count) return;
    const hashes = (await deps.accounts.listAll()).map((account) => account.password);
    chosen = { count, hash: await dummyAt(prevailingCost(hashes, deps.configuredCost)) };
  };

  const refresh = (): Promise<void> =>
    (checking ??= check()
      .catch(deps.onError)
      .finally(() => {
        checking = undefined;
      }));

  void refresh();
  return {
    current: () => {
      void refresh();
      return chosen.hash;
    },
    settled: () => checking ?? Promise.resolve(),
  };
}
