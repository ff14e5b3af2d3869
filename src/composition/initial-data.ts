/** Roles and accounts seeded at start-up from JSON (BCrypt hashes only): each applied once per store, never overwritten. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../config.ts';
import type { Logger } from '../logger.ts';
import { BCRYPT_HASH } from '../security/formats.ts';
import { epochSeconds } from '../security/epoch.ts';
import { canonicalUsername, usernameRefusal } from '../security/usernames.ts';
import type { AccountStore } from '../stores/account-store.ts';

const bcryptHash = z.string().regex(BCRYPT_HASH, 'must be a BCrypt hash, never a plain password');

const schema = z
  .object({
    roles: z.array(z.object({ roleName: z.string().min(1), description: z.string().default('') }).strict()),
    users: z.array(
      z
        .object({
          username: z.string().min(1),
          password: bcryptHash,
          firstName: z.string().default(''),
          lastName: z.string().default(''),
          roles: z.array(z.string().min(1)),
        })
        .strict(),
    ),
  })
  .strict();

export type InitialData = z.infer<typeof schema>;

export function readInitialData(path: string): InitialData {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const why =
      error instanceof SyntaxError ? 'not valid JSON' : ((error as NodeJS.ErrnoException).code ?? 'unreadable');
    throw new ConfigError(`Invalid configuration: app.initial-data: ${path} is ${why}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `Invalid configuration: app.initial-data: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`,
    );
  }
  return parsed.data;
}

/** The accounts a seeding created, and those it did not create though the store lacks them. */
export interface SeedReport {
  readonly created: readonly string[];
  /** Seeded once and deleted since: deleting a seeded account is final. */
  readonly deleted: readonly string[];
  /** Begun by another process that has not finished (MongoDB; see `SeedOutcome`). */
  readonly unfinished: readonly string[];
}

/**
 * Seeds: applies each role and account of the file to the store once, and never changes one it has
 * (an administrator may have changed or disabled it since). The store records each account it
 * seeded, and the record outlives the account: one deleted since is not created again, at any
 * later start of any process sharing the store. Running it twice, or in several processes starting
 * at once, creates each once. A role an account names but the file does not list is created with no
 * description. Roles are created when missing: no operation deletes one, and a role grants nothing
 * without an account holding it. A password of the file is a hash, which the password policy cannot
 * judge: the caller warns of each account created ({@link warnOfInitialAccount}) and of each skipped
 * ({@link warnOfSkippedAccount}).
 */
export async function loadInitialData(store: AccountStore, data: InitialData): Promise<SeedReport> {
  const named = data.users.flatMap((u) => u.roles).map((roleName) => ({ roleName, description: '' }));
  for (const role of [...data.roles, ...named]) await store.createRole(role);
  const report = { created: [] as string[], deleted: [] as string[], unfinished: [] as string[] };
  for (const user of data.users) {
    const outcome = await store.seedAccount({ ...user, enabled: true, updatedAt: epochSeconds() });
    if (outcome === 'created' || outcome === 'deleted' || outcome === 'unfinished') report[outcome].push(user.username);
  }
  return report;
}

/** Warns of each account a seeding created ({@link warnOfInitialAccount}) or skipped ({@link warnOfSkippedAccount}). */
export function warnOfSeeding(logger: Logger, report: SeedReport, production: boolean): void {
  for (const account of report.created) warnOfInitialAccount(logger, account, production);
  for (const account of report.deleted) warnOfSkippedAccount(logger, account, 'deleted');
  for (const account of report.unfinished) warnOfSkippedAccount(logger, account, 'unfinished');
}

/** An account of the file that seeding did not create though the store lacks it (naming it, never its password). */
export function warnOfSkippedAccount(logger: Logger, account: string, why: 'deleted' | 'unfinished'): void {
  if (why === 'deleted')
    logger.warn(
      { account },
      'an account of the initial data is not created again: it was seeded before and has been deleted since (deleting a seeded account is final; create it again through account administration to bring it back)',
    );
  else
    logger.warn(
      { account },
      'an account of the initial data is not created here: another process began seeding it and has not finished (it may be doing so now, or have stopped part-way); if it stays missing, create it through account administration',
    );
}

/**
 * What the rules for accounts could not check of one the initial data created (naming it, never its
 * password): in production, its password, given as a hash (in development the initial data is the
 * repository's, whose published passwords pass the policy: a test says so); its username, when the
 * username rule would refuse it.
 */
export function warnOfInitialAccount(logger: Logger, account: string, production: boolean): void {
  if (production)
    logger.warn(
      { account },
      'an account of the initial data was created with a password hash, which the password policy cannot check; set its password through account administration to apply the policy',
    );
  const rule =
    usernameRefusal(account) ??
    (canonicalUsername(account) === account ? undefined : 'is not in its canonical form (NFKC, lower case)');
  if (rule !== undefined)
    logger.warn(
      { account, rule },
      'an account of the initial data has a username that the username rule refuses (new accounts get canonical, NFKC lower-case names); it logs in by this exact name',
    );
}
