// The Dockerfile stays in step with the project it packages: the server starts as `npm start` starts
// it, the version label is package.json's, every file it copies is sent in the build context, and
// every setting it gives is a configuration key's variable.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CONFIG_KEYS } from '../src/config.ts';

const t = suite('Dockerfile');
const dockerfile = readFileSync('Dockerfile', 'utf8').replace(/\\\n/g, ' ');
const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
};

/** The JSON array of an exec-form instruction (`CMD [...]`). */
function execForm(instruction: string): string[] {
  const line = dockerfile.split('\n').find((l) => l.startsWith(`${instruction} [`));
  assert.ok(line !== undefined, `no ${instruction} in exec form`);
  return JSON.parse(line.slice(instruction.length + 1)) as string[];
}

t('the server starts with the node arguments of npm start', () => {
  const start = packageJson.scripts['start'] ?? '';
  assert.equal(execForm('ENTRYPOINT'), ['node']);
  assert.equal(execForm('CMD'), start.replace(/^exec node /, '').split(' '));
});

t("the version label defaults to package.json's version", () => {
  assert.match(dockerfile, new RegExp(`^ARG VERSION=${packageJson.version.replace(/\./g, '\\.')}$`, 'm'));
  assert.match(dockerfile, /org\.opencontainers\.image\.version="\$\{VERSION\}"/);
});

t('every file the image copies from the build context is let through by .dockerignore', () => {
  const allowed = readFileSync('.dockerignore', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('!'))
    .map((l) => l.slice(1));
  const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) =>
    (m[1] ?? '').trim().split(/\s+/).slice(0, -1),
  );
  assert.ok(copied.length > 5, copied.join(' '));
  for (const path of copied) assert.ok(allowed.includes(path), `${path} is copied but not sent (.dockerignore)`);
});

t('every setting of the image is the variable of a configuration key', () => {
  const line = dockerfile.split('\n').find((l) => l.startsWith('ENV ')) ?? '';
  const names = [...line.matchAll(/([A-Z_]+)=/g)].map((m) => m[1]);
  const variables = new Set(CONFIG_KEYS.map((k) => k.toUpperCase().replace(/[.-]/g, '_')));
  assert.equal(names, ['NODE_ENV', 'SERVER_HOST', 'DATA_DIR', 'APP_INITIAL_DATA']);
  for (const name of names.slice(1)) assert.ok(variables.has(name ?? ''), `${name} sets no key`);
});

t.run();
