/**
 * The documentation stands alone and stays true: links resolve inside the repository, no document
 * leans on files a clone does not have, and the route table of docs/api.md is the router's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routesOf, type RouteInfo } from '../http/app.ts';
import { anchors, documents, prose } from './helpers/docs.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const ctx = {} as { server: TestServer };
const t = suite('documentation', ctx);
t.after(async () => ctx.server?.close());

t('every relative link names a file of the repository, and every anchor a heading of it', () => {
  for (const doc of documents()) {
    for (const [, target] of prose(doc.text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target === undefined || /^[a-z]+:/i.test(target)) continue; // http(s):, mailto:
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const path = file === '' ? doc.path : normalize(join(dirname(doc.path), file));
      assert.ok(!path.startsWith('..'), `${doc.path}: ${target} leaves the repository`);
      assert.ok(existsSync(path), `${doc.path}: ${target} names no file`);
      if (anchor !== undefined && path.endsWith('.md')) {
        assert.ok(anchors(readFileSync(path, 'utf8')).has(anchor), `${doc.path}: ${target} names no heading`);
      }
    }
  }
});

t('no document refers to what a clone does not have', () => {
  const outside = [
    /\.\.\/shared/,
    /\bthe contract\b(?! suites?)/i,
    /\bthe seed\b/i,
    /\bseed's\b/i,
    /\bService [ABC]\b/,
    /\bstack notes\b/i,
    /\bhouse (layout|style)\b/i,
    /\bthe issue\b/i,
  ];
  for (const doc of documents()) {
    for (const pattern of outside) assert.not.match(doc.text, pattern, `${doc.path} mentions ${pattern}`);
  }
});

/** The access column of docs/api.md's route table, as the router declares it. */
function accessText(r: RouteInfo): string {
  const a = r.access;
  if (a.kind === 'bearer' && a.role !== undefined) return `role ${a.role} (checked first), scope ${a.scope ?? ''}`;
  if (a.kind === 'bearer' && a.firstParty) return 'bearer, first-party client';
  if (a.kind === 'bearer') return a.scope === undefined ? 'bearer' : `bearer, scope ${a.scope}`;
  if (a.kind === 'role') return `role ${a.role}`;
  if (a.kind === 'client' && a.confidential) return 'confidential client';
  return a.kind;
}

t('docs/api.md lists every route with its access, and no other', async () => {
  ctx.server = await startTestServer();
  const api = readFileSync('docs/api.md', 'utf8');
  const text = api.slice(api.indexOf('\n## Routes\n'), api.indexOf('\n## ', api.indexOf('\n## Routes\n') + 1));
  const documented = [...text.matchAll(/^\| `(GET|POST|PUT|PATCH|DELETE) ([^`]+)` \| ([^|]+) \|/gm)].map(
    ([, m, p, a]) => `${m} ${p} | ${a?.trim()}`,
  );
  const served = routesOf(ctx.server.troupe.app).map((r) => `${r.method} ${r.path} | ${accessText(r)}`);
  assert.equal([...documented].sort(), [...served].sort());
});

t('the actor-test skeleton of docs/testing.md type-checks, runs and passes as written', () => {
  const doc = readFileSync('docs/testing.md', 'utf8');
  const code = /^```ts skeleton\n([\s\S]*?)^```$/m.exec(doc)?.[1];
  assert.ok(code, 'docs/testing.md has a skeleton block');
  // Where a newcomer would put it, beside the other actor tests (its imports are relative to it).
  const file = `test/actors/skeleton-${process.pid}.test.ts`;
  const project = `tsconfig.skeleton-${process.pid}.json`;
  writeFileSync(file, code);
  writeFileSync(project, JSON.stringify({ extends: './tsconfig.json', include: [], files: [file] }));
  try {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], { encoding: 'utf8' });
    const out = execFileSync(process.execPath, ['scripts/test.mjs', `actors/skeleton-${process.pid}`], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.match(out.trimEnd().split('\n').at(-1) ?? '', /^1 passed, 0 failed$/);
  } finally {
    rmSync(file, { force: true });
    rmSync(project, { force: true });
  }
});

t.run();
