// `npm run keys -- list [--json] [--use USE] | rotate [--use USE] [--alg ALG] | retire KID [--use USE]`:
// the signing-key set of the store the server uses (same configuration: DATA_DIR, the properties
// file, mongodb.uri), while servers run. USE is the lineage, `access` (the default) or `id_token`;
// `list` shows both unless one is named. A refusal is one line on stderr and a non-zero exit: 2
// for a usage error, 1 otherwise.
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
import { KEY_USES, type KeyUse } from '../src/stores/key-store.ts';
import type { Stores } from '../src/stores/stores.ts';
import { StoreUnavailableError } from '../src/stores/store-unavailable.ts';

const USAGE =
  'usage: npm run keys -- list [--json] [--use access|id_token] | rotate [--use access|id_token] [--alg ES256|ES384|ES512|RS256|RS384|RS512] | retire KID [--use access|id_token]';

/** A refusal: its line on stderr, and the exit code. */
class Refusal extends Error {
  readonly code: number;
  constructor(message: string, code = 1) {
    super(message);
    this.code = code;
  }
}

interface Args {
  readonly command: string;
  readonly kid: string | undefined;
  readonly json: boolean;
  readonly alg: GeneratedAlg | undefined;
  /** The lineage named with `--use`; undefined: `access`, or both for `list`. */
  readonly use: KeyUse | undefined;
}

function readArgs(): Args {
  const args = process.argv.slice(2);
  // A key id is a JWK thumbprint in base64url, which may begin with '-': after `retire` it is
  // the key id, whatever it begins with, unless it is one of the options.
  const second = args[1];
  if (args[0] === 'retire' && second?.startsWith('-') && !/^--(json|alg|use)(=|$)/.test(second) && second !== '--')
    args.splice(1, 0, '--');
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, alg: { type: 'string' }, use: { type: 'string' } },
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
  const use = values.use;
  if (use !== undefined && !(KEY_USES as readonly string[]).includes(use))
    throw new Refusal(`unknown use ${use}; one of ${KEY_USES.join(', ')}`, 2);
  return {
    command,
    kid,
    json: values.json === true,
    alg: alg as GeneratedAlg | undefined,
    use: use as KeyUse | undefined,
  };
}

/** A key set fixed by configuration: its access keys are the configuration's to change. */
const FIXED =
  'the access keys are fixed by configuration (security.signing-key): change that property, with security.previous-signing-keys, to change them; --use id_token works on the id_token keys';

/** The server's stores, opened as the server opens them; an SQLite file must exist already. */
function openStores(config: Config): Stores {
  const file = join(config.data.dir, 'troupe.db');
  if (!config.mongodb.uri && !existsSync(file))
    throw new Refusal(`no store at ${file}: start the server once, or set DATA_DIR`);
  return openConfiguredStores(config);
}

const table = (keys: readonly ListedKey[]): string => {
  const rows = [
    ['KID', 'USE', 'ALG', 'STATE', 'CREATED', 'SIGNS FROM / RETIRED', 'LEAVES'],
    ...keys.map((k) => [k.kid, k.use, k.alg, k.state, k.created, k.activates, k.leaves ?? '-']),
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

/** The lineages `list` shows: the one named, or both (the id_token keys alone beside a configured access key). */
function listed(config: Config, use: KeyUse | undefined): readonly KeyUse[] {
  if (use !== undefined) return [use];
  return keysConfigured(config) ? ['id_token'] : KEY_USES;
}

/** An unknown kid of one lineage that the other lineage has: the refusal says which `--use` names it. */
async function otherLineage(stores: Stores, use: KeyUse, kid: string): Promise<KeyUse | undefined> {
  const other = KEY_USES.find((u) => u !== use) ?? use;
  return (await stores.keys[other].read()).some((r) => r.kid === kid && r.removedAt === null) ? other : undefined;
}

async function run(config: Config, stores: Stores, args: Args): Promise<string> {
  const settings = commandSettings(config);
  const by = (what: string): string => actor(`keys ${what} by ${userInfo().username}`);
  if (args.command === 'list') {
    const keys: ListedKey[] = [];
    for (const use of listed(config, args.use)) keys.push(...(await listKeys(stores.keys[use], settings)));
    return args.json ? JSON.stringify(keys, null, 2) : table(keys);
  }
  const use = args.use ?? 'access';
  if (args.command === 'rotate') {
    const added = await rotateKeys(stores.keys[use], { ...settings, alg: args.alg, use, by: by('rotate') });
    const what = `${added.kid} (${use} key, ${added.alg})`;
    if (added.now) return `added ${what} as active: it signs from now on; the previous key retires`;
    return `added ${what} as next: published now, signs from ${added.activates}; the active key retires then`;
  }
  const kid = args.kid ?? '';
  try {
    const was = await retireKey(stores.keys[use], kid, { ...settings, by: by('retire') });
    return `retired ${kid} (${use} key, was ${was}): its tokens are refused from now on`;
  } catch (error) {
    const other =
      error instanceof KeySetError && error.code === 'keys.unknown_kid' && (await otherLineage(stores, use, kid));
    if (other) throw new Refusal(`no ${use} key ${kid}; it is an ${other} key: retire it with --use ${other}`);
    throw error;
  }
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
  // Beside a configured access key, the id_token keys are still the set's.
  if (keysConfigured(config) && (args.use === 'access' || (args.use === undefined && args.command !== 'list')))
    throw new Refusal(FIXED);
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
