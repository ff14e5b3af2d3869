/**
 * The one MongoDB connection of a process, and what every MongoDB adapter shares: failures of
 * reachability as {@link StoreUnavailableError}, duplicate keys, a sequence counter, and whether
 * the deployment runs transactions (a replica set or a sharded cluster does; a standalone does not).
 */
import {
  MongoClient,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type ClientSession,
  type Db as MongoDb,
} from 'mongodb';
import { ConfigError } from '../config.ts';
import { StoreUnavailableError } from '../unavailable.ts';

/** How long an operation waits for a reachable server before it fails (the driver's default is 30 s). */
export const SERVER_SELECTION_TIMEOUT_MS = 3000;

const isUnreachable = (error: unknown): boolean =>
  error instanceof MongoServerSelectionError ||
  error instanceof MongoNetworkError ||
  error instanceof MongoTopologyClosedError ||
  error instanceof MongoNotConnectedError;

/** Runs `work`, turning "the server cannot be reached" into {@link StoreUnavailableError}. */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUnreachable(error)) throw new StoreUnavailableError('MongoDB cannot be reached', { cause: error });
    throw error;
  }
}

/** A write refused by a unique index. */
export const isDuplicateKey = (error: unknown): boolean => error instanceof MongoServerError && error.code === 11000;

/** The counter document of a named sequence (`counters` collection). */
export interface CounterDoc {
  _id: string;
  seq: number;
}

/** The next value of the sequence `name` (1, 2, …), assigned atomically by the database. */
export async function nextSeq(db: MongoDb, name: string): Promise<number> {
  const doc = await db
    .collection<CounterDoc>('counters')
    .findOneAndUpdate({ _id: name }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
  if (!doc) throw new Error(`the counter ${name} returned no document`);
  return doc.seq;
}

export interface Mongo {
  readonly client: MongoClient;
  /** The database named by the URI's path. */
  readonly db: MongoDb;
  /**
   * Runs `work` in a transaction when the deployment supports them, else without a session (the
   * caller orders its writes so that a crash between them leaves nothing wrong).
   */
  inTransaction<T>(work: (session: ClientSession | undefined) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The process's one MongoClient for `uri`. No I/O happens until the first operation. */
export function openMongo(uri: string): Mongo {
  const timeout = /[?&]serverSelectionTimeoutMS=/i.test(uri)
    ? {}
    : { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS };
  let client: MongoClient;
  try {
    client = new MongoClient(uri, timeout);
  } catch {
    // The constructor does no I/O: it fails only on the URI, whose text may hold a password.
    throw new ConfigError('Invalid configuration: mongodb.uri is not a valid MongoDB connection string');
  }
  const db = client.db();
  let transactions: Promise<boolean> | undefined;
  const supportsTransactions = (): Promise<boolean> => {
    transactions ??= db
      .admin()
      .command({ hello: 1 })
      .then(
        (hello) => typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid',
        (error: unknown) => {
          transactions = undefined;
          throw error;
        },
      );
    return transactions;
  };
  return {
    client,
    db,
    inTransaction: (work) =>
      guarded(async () => {
        if (!(await supportsTransactions())) return work(undefined);
        const session = client.startSession();
        try {
          return await session.withTransaction(() => work(session));
        } finally {
          await session.endSession();
        }
      }),
    ping: () =>
      guarded(async () => {
        await db.command({ ping: 1 });
      }),
    close: () => client.close(),
  };
}
