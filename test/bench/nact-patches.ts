/**
 * The bench's choice of nact patches, for scenario 17 (`scenarios-patches.ts`): Node imports this
 * module before the server's first one (`--import ./test/bench/nact-patches.ts?patches=a,b`), and
 * it applies the patches its URL names (comma-separated; none for `?patches=`) before
 * `src/messaging/nact.ts` would apply them all. Production never loads it.
 */
import { applyPatches } from '../../src/messaging/nact-patches.ts';

const list = new URL(import.meta.url).searchParams.get('patches');
applyPatches(
  list
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== ''),
);
