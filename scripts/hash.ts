// `npm run hash -- <secret> [--cost N]` prints a BCrypt hash for security.jwt.client-secret or the
// initial data. Without <secret> it reads one line from standard input, which keeps the secret out
// of the shell history: at a terminal after a prompt on stderr, with nothing echoed. A secret the password policy would refuse as an account's password is still
// hashed (the initial data's accounts are not refused), with a warning saying which rule it fails.
// With --client it is a client secret: one shorter than MIN_CLIENT_SECRET_LENGTH characters is refused.
import bcrypt from 'bcryptjs';
import { parseArgs } from 'node:util';
import { PromptCancelled, readSecret } from '../src/secret-prompt.ts';
import { passwordPolicyRefusal } from '../src/security/password-policy.ts';
import { MAX_PASSWORD_BYTES } from '../src/security/passwords.ts';
import { MIN_CLIENT_SECRET_LENGTH } from '../src/security/client-secret-strength.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { cost: { type: 'string', default: '10' }, client: { type: 'boolean', default: false } },
});
const cost = Number(values.cost);

async function secretToHash(): Promise<string> {
  if (positionals[0] !== undefined) return positionals[0];
  try {
    return await readSecret('Secret to hash (not echoed): ');
  } catch (error) {
    if (!(error instanceof PromptCancelled)) throw error;
    process.exit(130);
  }
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const secret = await secretToHash();
if (!Number.isInteger(cost) || cost < 4 || cost > 31) fail('--cost must be a whole number from 4 to 31');
if (secret === '') fail('usage: npm run hash -- <secret> [--cost N]   (or pipe the secret on standard input)');
if (Buffer.byteLength(secret, 'utf8') > MAX_PASSWORD_BYTES)
  fail(`refused: BCrypt uses only the first ${MAX_PASSWORD_BYTES} bytes, and this secret is longer`);
if (values.client && [...secret].length < MIN_CLIENT_SECRET_LENGTH)
  fail(
    `refused: a client secret needs at least ${MIN_CLIENT_SECRET_LENGTH} characters (a random one, e.g. openssl rand -base64 32)`,
  );
const weak = passwordPolicyRefusal(secret);
if (weak !== undefined) process.stderr.write(`warning: as an account's password this would be refused: ${weak}\n`);
process.stdout.write(`${bcrypt.hashSync(secret, cost)}\n`);
