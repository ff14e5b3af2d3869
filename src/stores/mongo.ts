/**
 * The one MongoDB connection of a process, and what every MongoDB adapter shares: failures of
 * reachability as {@link StoreUnavailableError}, duplicate keys, a sequence counter, and whether
 * the deployment runs transactions (a replica set or a sharded cluster does; a standalone does not).
 */
import {
  MongoClient,
  MongoClientClosedError,
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
  type ClientSession,
  type Db as MongoDb,
  type IndexDescription,
  type UpdateResult,
} from 'mongodb';
import { ConfigError } from '../config.ts';
import { StoreUnavailableError } from './store-unavailable.ts';

/** The indexes of each collection by its name, created at start-up (createIndexes is idempotent). */
export type CollectionIndexes = Readonly<Record<string, readonly IndexDescription[]>>;

/** How long an operation waits for a reachable server before it fails (the driver's default is 30 s). */
export const SERVER_SELECTION_TIMEOUT_MS = 3000;

/** The default of `mongodb.operation-timeout-ms`. */
const OPERATION_TIMEOUT_MS = 5000;

/** How long `/ready`'s ping may take: a readiness probe answers quickly either way. */
const PING_TIMEOUT_MS = 2000;

/**
 * Server errors of a replica set changing hands or a server going down (the driver labels most of
 * them; these codes cover replies that carry no label): NotWritablePrimary, NotPrimaryNoSecondaryOk,
 * NotPrimaryOrSecondary, PrimarySteppedDown, ShutdownInProgress, InterruptedAtShutdown,
 * InterruptedDueToReplStateChange, WriteConcernFailed, HostUnreachable, HostNotFound,
 * NetworkTimeout, SocketException, ExceededTimeLimit, MaxTimeMSExpired.
 */
const FAILOVER_CODES = new Set([10107, 13435, 13436, 189, 91, 11600, 11602, 64, 6, 7, 89, 9001, 262, 50]);

/** Labels the driver or the server put on errors that are worth retrying later. */
const TRANSIENT_LABELS = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.ResetPool,
  MongoErrorLabel.TransientTransactionError,
  MongoErrorLabel.PoolRequestedRetry,
  MongoErrorLabel.SystemOverloadedError,
];

/** Driver errors, not all exported, that mean "no connection now": pools cleared or closed, a full wait queue. */
const UNREACHABLE_NAMES = new Set(['MongoPoolClosedError', 'MongoPoolClearedError', 'MongoWaitQueueTimeoutError']);

/** Node's DNS errors, as a `mongodb+srv://` URI meets them before any topology exists. */
const isDnsError = (error: unknown): boolean =>
  error instanceof Error &&
  /^(querySrv|queryTxt|getaddrinfo)$/.test(String((error as NodeJS.ErrnoException).syscall)) &&
  typeof (error as NodeJS.ErrnoException).code === 'string';

/**
 * Whether `error` means the database cannot serve now but may soon: unreachable, no primary, a
 * failover under way, a closed pool or client, an unresolvable SRV record, a timeout.
 */
function isUnavailable(error: unknown): boolean {
  if (isDnsError(error)) return true;
  if (!(error instanceof MongoError)) return false;
  if (TRANSIENT_LABELS.some((label) => error.hasErrorLabel(label))) return true;
  if (error instanceof MongoServerError && typeof error.code === 'number' && FAILOVER_CODES.has(error.code))
    return true;
  return (
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoWriteConcernError ||
    UNREACHABLE_NAMES.has(error.name)
  );
}

/** Runs `work`, turning "the server cannot serve now" into {@link StoreUnavailableError}. */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUnavailable(error)) throw new StoreUnavailableError('MongoDB cannot be reached', { cause: error });
    throw error;
  }
}

/** How an adapter runs each operation: connected, prepared, bounded, failures mapped. */
export type Runner = <T>(work: () => Promise<T>) => Promise<T>;

/** A write refused by a unique index. */
/** `s` as a regular expression that matches exactly it: every metacharacter escaped. */
export const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const isDuplicateKey = (error: unknown): boolean => error instanceof MongoServerError && error.code === 11000;

/** How many documents an update matched, or `taken` when a unique index refused it (nothing written). */
export async function matchedOrTaken(update: Promise<UpdateResult>): Promise<number | 'taken'> {
  try {
    return (await update).matchedCount;
  } catch (error) {
    if (isDuplicateKey(error)) return 'taken';
    throw error;
  }
}

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

export interface MongoOptions {
  /** Bound of one store operation, ms (`mongodb.operation-timeout-ms`). */
  readonly operationTimeoutMs?: number;
}

export interface Mongo {
  readonly client: MongoClient;
  /** The database named by the URI's path; every read goes to the primary, whatever the URI says. */
  readonly db: MongoDb;
  /**
   * Runs an operation of the stores: once connected, and only once {@link Mongo.opened} (until then
   * StoreUnavailableError, so nothing is written before the indexes exist), bounded by the
   * operation timeout, "cannot serve now" as StoreUnavailableError.
   */
  readonly run: Runner;
  /** {@link Mongo.run} without waiting to be opened: for the start-up preparation itself. */
  readonly runPreparing: Runner;
  /** Start-up preparation succeeded: the stores' operations may run. */
  opened(): void;
  /**
   * Runs `work` in a transaction when the deployment supports them, else without a session (the
   * caller orders its writes so that a crash between them leaves nothing wrong).
   */
  inTransaction<T>(work: (session: ClientSession | undefined) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

function newClient(uri: string, operationTimeoutMs: number): MongoClient {
  const selection = /[?&]serverSelectionTimeoutMS=/i.test(uri)
    ? {}
    : { serverSelectionTimeoutMS: Math.min(SERVER_SELECTION_TIMEOUT_MS, operationTimeoutMs) };
  // A black-holed network fails a socket after this much silence rather than the OS's minutes.
  const socket = /[?&]socketTimeoutMS=/i.test(uri) ? {} : { socketTimeoutMS: operationTimeoutMs };
  try {
    return new MongoClient(uri, { ...selection, ...socket });
  } catch {
    // The constructor does no I/O: it fails only on the URI, whose text may hold a password.
    throw new ConfigError('Invalid configuration: mongodb.uri is not a valid MongoDB connection string');
  }
}

/** Rejects with StoreUnavailableError when `work` takes longer than `ms`. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`MongoDB did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The process's one MongoClient for `uri`. No I/O happens until the first operation, which
 * connects explicitly; a failed connection is tried again by the next operation (the driver
 * itself would keep its topology closed for good after a failed first connection).
 */
export function openMongo(uri: string, options: MongoOptions = {}): Mongo {
  const timeoutMs = options.operationTimeoutMs ?? OPERATION_TIMEOUT_MS;
  const client = newClient(uri, timeoutMs);
  const db = client.db(undefined, { readPreference: 'primary' });
  let connecting: Promise<unknown> | undefined;
  const connect = (): Promise<unknown> =>
    (connecting ??= client.connect().catch((error: unknown) => {
      connecting = undefined;
      throw error;
    }));
  let isOpen = false;
  const runPreparing: Runner = (work) =>
    guarded(() =>
      within(
        timeoutMs,
        connect().then(() => work()),
      ),
    );
  const run: Runner = (work) =>
    isOpen
      ? runPreparing(work)
      : Promise.reject(new StoreUnavailableError('MongoDB is being prepared (indexes, initial data)'));
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
    run,
    runPreparing,
    opened: () => {
      isOpen = true;
    },
    inTransaction: (work) =>
      run(async () => {
        if (!(await supportsTransactions())) return work(undefined);
        const session = client.startSession();
        try {
          return await session.withTransaction(() => work(session));
        } finally {
          await session.endSession();
        }
      }),
    ping: () =>
      guarded(() =>
        within(
          Math.min(PING_TIMEOUT_MS, timeoutMs),
          connect().then(() => db.command({ ping: 1 })),
        ).then(() => undefined),
      ),
    close: () => client.close(),
  };
}
