import type { TokenSigner } from '../../src/security/jwt.ts';
import type { PasswordHasher } from '../../src/security/passwords.ts';
import type { AccountStore } from '../../src/stores/account-store.ts';
import type { ConsentStore } from '../../src/stores/consent-store.ts';
import type { RefreshTokenStore } from '../../src/stores/refresh-token-store.ts';

/** A step of work held at an exact moment until the test lets it go: races tested without sleeps. */
export interface Gate {
  /** Resolves once the held step has reached the gate. */
  readonly reached: Promise<void>;
  /** Lets the held step go on. */
  release(): void;
  /** Called by the held step: marks the gate reached, and resolves when it is released. */
  wait(): Promise<void>;
}

export function gate(): Gate {
  let arrive = (): void => {};
  let go = (): void => {};
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (go = resolve));
  return {
    reached,
    release: () => go(),
    wait: () => {
      arrive();
      return released;
    },
  };
}

/**
 * `signer` held: each signature, once made, waits at the gate `next` gives it (none: it goes on), so
 * a grant keeps its place beside TokenActor's mailbox for as long as the test wants.
 */
export const heldSigner =
  (next: () => Gate | undefined) =>
  (signer: TokenSigner): TokenSigner =>
  async (request, at) => {
    const hold = next();
    const issued = await signer(request, at);
    await hold?.wait();
    return issued;
  };

/** Where a TokenActor's work can be held: each gate set here holds the next call of its step, once. */
export interface Holds {
  /** The BCrypt verdict of a password check, once it is known. */
  verify?: Gate | undefined;
  /** A new BCrypt hash, once it is made (before whoever asked for it writes it). */
  hash?: Gate | undefined;
  /** A read of an account by id, once it is read. */
  read?: Gate | undefined;
  /** A refresh token's rotation, before it is written. */
  rotate?: Gate | undefined;
  /** A read of a refresh token's record, once it is read. */
  find?: Gate | undefined;
  /** A read of an account's consent to a client, once it is read. */
  consent?: Gate | undefined;
}

/** Waits at the gate set for `step`, if any, and clears it. */
async function pass(holds: Holds, step: keyof Holds): Promise<void> {
  const hold = holds[step];
  holds[step] = undefined;
  await hold?.wait();
}

/** The real hasher, its verdicts held at `holds.verify`, its new hashes at `holds.hash`. */
export function holdingHasher(hasher: PasswordHasher, holds: Holds): PasswordHasher {
  return {
    ...hasher,
    async verify(password, hash) {
      const verdict = await hasher.verify(password, hash);
      await pass(holds, 'verify');
      return verdict;
    },
    async hash(password, cost) {
      const made = await hasher.hash(password, cost);
      await pass(holds, 'hash');
      return made;
    },
  };
}

/**
 * Wrappers of the real stores for `startTokenActor`: reads of an account by id held at `read`, of a
 * refresh token at `find`, of a consent at `consent`, rotations at `rotate`.
 */
export function holdingStores(holds: Holds): {
  accounts: (store: AccountStore) => AccountStore;
  refreshTokens: (store: RefreshTokenStore) => RefreshTokenStore;
  consents: (store: ConsentStore) => ConsentStore;
} {
  return {
    consents: (store) => ({
      ...store,
      async find(accountId, clientId) {
        const found = await store.find(accountId, clientId);
        await pass(holds, 'consent');
        return found;
      },
    }),
    accounts: (store) => ({
      ...store,
      async findById(id) {
        const found = await store.findById(id);
        await pass(holds, 'read');
        return found;
      },
    }),
    refreshTokens: (store) => ({
      ...store,
      async find(hash) {
        const found = await store.find(hash);
        await pass(holds, 'find');
        return found;
      },
      async rotate(oldHash, next, at) {
        await pass(holds, 'rotate');
        return store.rotate(oldHash, next, at);
      },
    }),
  };
}
