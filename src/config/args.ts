/**
 * The command line of `npm start` as a configuration source: `--KEY=VALUE` or `--KEY VALUE` for
 * any configuration key (Spring Boot's form, e.g. `--server.port=9090`), and `--help`. Pure: the
 * caller decides what to print and how to exit.
 */

/** A command line that cannot be read: the caller prints the message and the usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface ParsedArgs {
  readonly help: boolean;
  /** Keys as in application.properties, in the order given (a later one wins). */
  readonly properties: Readonly<Record<string, string>>;
}

export const START_USAGE = [
  'usage: npm start [-- --KEY=VALUE ...]',
  '  Serves every configured service. KEY is any configuration key (docs/configuration.md), for',
  '  example --server.port=9090; a value given here wins over the environment and the properties file.',
  '  --help   print this text',
].join('\n');

/** A configuration key as written on a command line: dotted, lower-case segments. */
const KEY = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)*$/;

/**
 * Reads `args` (without node and the script). A dotted `--key` is a configuration key whether known
 * or not (the loader warns of an unknown one); anything else that is not `--help` is refused.
 */
export function parseArgs(args: readonly string[]): ParsedArgs {
  const properties: Record<string, string> = {};
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const match = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    const key = match?.[1];
    if (key === undefined || !KEY.test(key) || (!key.includes('.') && key !== 'services'))
      throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    const value = match?.[2] ?? args[++i];
    if (value === undefined) throw new UsageError(`--${key} needs a value: --${key}=VALUE`);
    properties[key] = value;
  }
  return { help, properties };
}
