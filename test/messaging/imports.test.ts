/** The modules of src/messaging import one another one way: no module reaches itself through its imports. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const t = suite('messaging: imports');
const DIR = join(import.meta.dirname, '../../src/messaging');

/** Each module's imports of its neighbours, type-only ones included. */
function neighbours(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(DIR, file), 'utf8');
    graph.set(
      file,
      [...text.matchAll(/from '\.\/([a-z-]+\.ts)'/g)].map((m) => m[1] ?? ''),
    );
  }
  return graph;
}

t('no import circle: nact.ts, its raw shapes and the observers stand on refs.ts', () => {
  const graph = neighbours();
  const circles: string[] = [];
  const walk = (file: string, path: readonly string[]): void => {
    if (path.includes(file)) {
      circles.push([...path.slice(path.indexOf(file)), file].join(' → '));
      return;
    }
    for (const next of graph.get(file) ?? []) walk(next, [...path, file]);
  };
  for (const file of graph.keys()) walk(file, []);
  assert.equal(circles, []);
  assert.equal(graph.get('refs.ts'), [], 'the lowest module imports none of its neighbours');
  assert.ok(graph.get('nact-raw.ts')?.includes('refs.ts') && graph.get('observers.ts')?.includes('refs.ts'));
});

t.run();
