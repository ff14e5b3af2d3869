/**
 * The stores' start-up preparation (the database's indexes, the initial data), which a database
 * out of reach does not hold up: the server starts, and it is tried again until it succeeds.
 */
import type { Logger } from '../logger.ts';
import type { AccountStore } from '../stores/account-store.ts';
import { causeOf, StoreUnavailableError } from '../stores/store-unavailable.ts';
import type { Stores } from '../stores/stores.ts';
import { loadInitialData, warnOfSeeding, type InitialData } from './initial-data.ts';

/** Whether the stores are prepared; `stop` ends the retries. */
export type Preparation = Readonly<Record<'done', () => boolean> & Record<'stop', () => void>>;

/**
 * The database made ready (indexes) and the initial accounts and roles seeded, each once per store. A database
 * that cannot be reached at start-up is no obstacle: the server starts (answering 503 where it is
 * needed, /ready naming it) and this is tried again every few seconds until it succeeds.
 */
export async function prepare(
  stores: Stores,
  initial: InitialData,
  logger: Logger,
  guard: (accounts: AccountStore) => Promise<void>,
  production: boolean,
): Promise<Preparation> {
  let done = false;
  const attempt = async (): Promise<void> => {
    await stores.prepare(async (accounts) => {
      warnOfSeeding(logger, await loadInitialData(accounts, initial), production);
      await guard(accounts);
    });
    done = true;
  };
  try {
    await attempt();
    return { done: () => done, stop: () => {} };
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    logger.warn(
      { store: stores.kind, cause: causeOf(error) },
      'the store cannot be reached; starting anyway, and retrying its preparation',
    );
  }
  const retry = setInterval(() => {
    attempt().then(
      () => {
        clearInterval(retry);
        logger.info({ store: stores.kind }, 'the store is prepared');
      },
      (error: unknown) =>
        logger.warn({ store: stores.kind, cause: causeOf(error) }, 'preparing the store failed; retrying'),
    );
  }, PREPARE_RETRY_MS).unref();
  return { done: () => done, stop: () => clearInterval(retry) };
}

const PREPARE_RETRY_MS = 5000;
