// What git keeps out of the repository: run-time files and the signing keys the documentation makes.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, tempDir } from './helpers/server.ts';

/** Whether the project's .gitignore ignores each of `paths` (in a scratch repository holding only it). */
function ignored(paths: readonly string[]): Map<string, boolean> {
  const repo = tempDir('troupe-gitignore-');
  try {
    assert.is(spawnSync('git', ['init', '-q', repo]).status, 0, 'git init');
    copyFileSync('.gitignore', join(repo, '.gitignore'));
    return new Map(
      paths.map((path) => [
        path,
        spawnSync('git', ['-C', repo, 'check-ignore', '-q', '--no-index', path]).status === 0,
      ]),
    );
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** Markdown files of the documentation: README.md and any under docs/. */
function documentation(dir = 'docs'): string[] {
  if (!existsSync(dir)) return ['README.md'];
  const nested = readdirSync(dir, { withFileTypes: true, recursive: true });
  return [
    'README.md',
    ...nested.filter((e) => e.isFile() && e.name.endsWith('.md')).map((e) => join(e.parentPath, e.name)),
  ];
}

/** Key files that the documentation's shell examples write into the working directory. */
function documentedKeyFiles(): string[] {
  const files = new Set<string>();
  for (const doc of documentation()) {
    for (const [, block = ''] of readFileSync(doc, 'utf8').matchAll(/```(?:bash|sh|shell)?\n([\s\S]*?)```/g)) {
      for (const [, name = ''] of block.matchAll(/\bssh-keygen\b[^\n]*?\s-f\s+(\S+)/g))
        files.add(name).add(`${name}.pub`);
      for (const [, name = ''] of block.matchAll(/\bopenssl\b[^\n]*?\s-out\s+(\S+)/g)) files.add(name);
    }
  }
  return [...files].filter((name) => !name.startsWith('/') && !name.startsWith('$'));
}

const t = suite('repository: .gitignore and data/');

t("the signing keys written by the documentation's ssh-keygen and openssl examples are ignored", () => {
  const keys = documentedKeyFiles();
  assert.ok(keys.length > 0, 'the documentation shows how to make a signing key');
  const outcome = ignored([...keys, 'server-key.pem']);
  for (const [path, isIgnored] of outcome) assert.ok(isIgnored, `${path} is not git-ignored`);
});

t(
  'every file a server writes into data/ is ignored and described in data/README.md; the tracked ones are not ignored',
  async () => {
    const server = await startTestServer();
    let written: string[];
    try {
      written = readdirSync(server.dataDir);
    } finally {
      await server.close();
    }
    assert.ok(written.includes('troupe.db'), written.join(', '));
    assert.not.ok(written.includes('signing.key'), 'a MAC key file is still generated: the key set lives in troupe.db');
    const readme = readFileSync('data/README.md', 'utf8');
    for (const name of written) assert.ok(readme.includes(`\`${name}\``), `data/README.md does not describe ${name}`);
    const outcome = ignored([
      ...written.map((name) => `data/${name}`),
      'data/repl_history',
      'data/README.md',
      'data/initial-data.json',
    ]);
    for (const [path, isIgnored] of outcome) {
      const tracked = path === 'data/README.md' || path === 'data/initial-data.json';
      assert.is(isIgnored, !tracked, `${path} ${tracked ? 'is' : 'is not'} git-ignored`);
    }
  },
);

t('code comments speak of the project as a clone has it: no seed, no Service A/B/C, no contract sections', () => {
  const tracked = spawnSync('git', ['ls-files', '*.ts', '*.mjs'], { encoding: 'utf8' }).stdout.split('\n');
  const stale = [/\bthe seed\b/i, /\bseed's\b/i, /\bService [ABC]\b/, /\bcontract §/];
  // The test files name these patterns themselves.
  for (const file of tracked.filter((f) => f !== '' && !f.startsWith('test/'))) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of stale) assert.not.match(text, pattern, `${file} mentions ${pattern}`);
  }
});

t.run();
