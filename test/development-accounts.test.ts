import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTroupe } from '../src/composition/troupe.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { loadInitialData, readInitialData } from '../src/composition/initial-data.ts';
import { createLogger } from '../src/logger.ts';
import { createPasswordHasher } from '../src/security/passwords.ts';
import type { AccountStore } from '../src/stores/account-store.ts';
import { openSqliteStores } from '../src/stores/stores.sqlite.ts';
import { tempDir } from './helpers/server.ts';

const t = suite('NODE_ENV=production refuses the development accounts');
const OTHER_HASH = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';

const productionProperties = (dir: string): Record<string, string> => ({
  'data.dir': dir,
  'server.port': '0',
  'logging.level': 'silent',
  'security.signing-key': 'p'.repeat(64),
  'security.jwt.client-secret': OTHER_HASH,
  'security.jwt.issuer': 'http://127.0.0.1',
});
const productionConfig = (dir: string) => loadConfig({ properties: productionProperties(dir) }, true);

/** Changes the store as an administrator would have: `change` gets each initial account. */
async function administer(
  dir: string,
  change: (accounts: AccountStore, id: number, username: string) => Promise<unknown>,
): Promise<void> {
  const stores = openSqliteStores(dir, { synchronous: 'NORMAL', openTimeoutMs: 5000 });
  try {
    await loadInitialData(stores.accounts, readInitialData('data/initial-data.json'));
    for (const a of await stores.accounts.listAll()) await change(stores.accounts, a.id, a.username);
  } finally {
    await stores.close();
  }
}

t('one line naming the account while an enabled one keeps a published password; starts once none does', async () => {
  const dir = tempDir();
  try {
    const refusal = await startTroupe(productionConfig(dir), createLogger('silent')).then(
      async (troupe) => {
        await troupe.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    assert.instance(refusal, ConfigError);
    const message = (refusal as ConfigError).message;
    assert.match(message, /account "admin" still has a password published in this repository/);
    assert.not.match(message, /\n/);
    assert.not.match(message, /admin-password/);

    const hasher = createPasswordHasher(1);
    const hash = await hasher.hash('a-new-secret-password', 4);
    await hasher.close();
    await administer(dir, (accounts, id, username) =>
      username === 'admin'
        ? accounts.setPassword(id, hash)
        : accounts.updateAccount(id, { enabled: false }, 'ADMIN', 1),
    );
    const troupe = await startTroupe(productionConfig(dir), createLogger('silent'));
    await troupe.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t(
  'an account the initial data creates in production is named in a warning: its hash escapes the password policy',
  async () => {
    const dir = tempDir();
    try {
      const initial = join(dir, 'initial-data.json');
      writeFileSync(
        initial,
        JSON.stringify({
          roles: [{ roleName: 'ADMIN' }],
          users: [{ username: 'ops', password: OTHER_HASH, roles: ['ADMIN'] }],
        }),
      );
      const lines: string[] = [];
      const sink = { write: (line: string) => lines.push(line) } as unknown as NodeJS.WritableStream;
      const config = loadConfig(
        { properties: { ...productionProperties(dir), 'app.initial-data': initial, 'logging.level': 'warn' } },
        true,
      );
      const troupe = await startTroupe(config, createLogger('warn', sink));
      await troupe.close();
      const warned = lines
        .map((l) => JSON.parse(l) as { msg: string; account?: unknown })
        .filter((l) => l.msg.includes('password policy'));
      assert.equal(
        warned.map((l) => l.account),
        ['ops'],
      );
      assert.not.match(JSON.stringify(warned), /\$2[aby]\$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

t.run();
