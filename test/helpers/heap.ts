/** The heap in use after two full collections, in MiB (the collector is exposed for tests only). */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
}
