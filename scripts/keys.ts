// `npm run keys -- list [--json] | rotate [--alg ALG] | retire KID`: the signing-key set of the
// store the server uses (same configuration: DATA_DIR, the properties file, mongodb.uri), while
// servers run. A refusal is one line on stderr and a non-zero exit: 2 for a usage error, 1 otherwise.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { commandSettings, listKeys, retireKey, rotateKeys, type ListedKey } from '../src/composition/key-commands.ts';
import { actor, keysConfigured } from '../src/composition/keys.ts';
import { openConfiguredStores } from '../src/composition/stores.ts';
import { ConfigError, configFromProcess, type Config } from '../src/config.ts';
import { KeyStoreUnreadableError } from '../src/security/key-material.ts';
import { GENERATED_ALGS, KeySetError, type GeneratedAlg } from '../src/security/key-set.ts';
import type { Stores } from '../src/stores/stores.ts';
import { StoreUnavailableError } from '../src/stores/store-unavailable.ts';

const USAGE = 'usage: npm run keys -- list [--json] | rotate [--alg ES256|ES384|ES512|RS256|RS384|RS512] | retire KID';

/** A refusal: its line on stderr, and the exit code. */
class Refusal extends Error {
  readonly code: number;
  constructor(message: string, code = 1) {
    super(message);
    this.code = code;
  }
}

function readArgs(): { command: string; kid: string | undefined; json: boolean; alg: GeneratedAlg | undefined } {
  const args = process.argv.slice(2);
  // A key id is a JWK thumbprint in base64url, which may begin with '-': after `retire` it is
  // the key id, whatever it begins with, unless it is one of the options.
  const second = args[1];
  if (args[0] === 'retire' && second?.startsWith('-') && !/^--(json|alg)(=|$)/.test(second) && second !== '--')
    args.splice(1, 0, '--');
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, alg: { type: 'string' } },
    });
  } catch (error) {
    throw new Refusal(`${(error as Error).message.split('.')[0] ?? 'bad arguments'}; ${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  const [command = '', kid, ...extra] = positionals;
  const fits =
    (command === 'list' && kid === undefined && values.alg === undefined) ||
    (command === 'rotate' && kid === undefined && values.json === undefined) ||
    (command === 'retire' && kid !== undefined && values.alg === undefined && values.json === undefined);
  if (!fits || extra.length > 0) throw new Refusal(USAGE, 2);
  const alg = values.alg;
  if (alg !== undefined && !(GENERATED_ALGS as readonly string[]).includes(alg))
    throw new Refusal(`unknown algorithm ${alg}; one of ${GENERATED_ALGS.join(', ')}`, 2);
  return { command, kid, json: values.json === true, alg: alg as GeneratedAlg | undefined };
}

/** The server's stores, opened as the server opens them; an SQLite file must exist already. */
function openStores(config: Config): Stores {
  const file = join(config.data.dir, 'troupe.db');
  if (!config.mongodb.uri && !existsSync(file))
    throw new Refusal(`no store at ${file}: start the server once, or set DATA_DIR`);
  return openConfiguredStores(config);
}

const table = (keys: readonly ListedKey[]): string => {
  const rows = [
    ['KID', 'ALG', 'STATE', 'CREATED', 'SIGNS FROM / RETIRED', 'LEAVES'],
    ...keys.map((k) => [k.kid, k.alg, k.state, k.created, k.activates, k.leaves ?? '-']),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
};

async function run(config: Config, stores: Stores, args: ReturnType<typeof readArgs>): Promise<string> {
  const settings = commandSettings(config);
  const by = (what: string): string => actor(`keys ${what} by ${userInfo().username}`);
  if (args.command === 'list') {
    const keys = await listKeys(stores.keys, settings);
    return args.json ? JSON.stringify(keys, null, 2) : table(keys);
  }
  if (args.command === 'rotate') {
    const added = await rotateKeys(stores.keys, { ...settings, alg: args.alg, by: by('rotate') });
    if (added.now) return `added ${added.kid} (${added.alg}) as active: it signs from now on; the previous key retires`;
    return `added ${added.kid} (${added.alg}) as next: published now, signs from ${added.activates}; the active key retires then`;
  }
  const kid = args.kid ?? '';
  const was = await retireKey(stores.keys, kid, { ...settings, by: by('retire') });
  return `retired ${kid} (was ${was}): its tokens are refused from now on`;
}

function explain(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  if (error instanceof ConfigError || error instanceof KeySetError || error instanceof KeyStoreUnreadableError)
    return new Refusal(error.message);
  if (error instanceof StoreUnavailableError) return new Refusal(`the store cannot be reached: ${error.message}`);
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new Refusal(`failed: ${message}`);
}

let stores: Stores | undefined;
try {
  const args = readArgs();
  const config = configFromProcess();
  if (keysConfigured(config))
    throw new Refusal(
      'the key set is fixed by configuration (security.signing-key): change that property, with security.previous-signing-keys, to change keys',
    );
  stores = openStores(config);
  // MongoDB: the indexes made, the stores' operations allowed (no initial data is loaded here).
  await stores.prepare(async () => {});
  process.stdout.write(`${await run(config, stores, args)}\n`);
} catch (error) {
  const refusal = explain(error);
  process.stderr.write(`keys: ${refusal.message}\n`);
  process.exitCode = refusal.code;
} finally {
  await stores?.close().catch(() => {});
}
