/** The rules of several instances, on one SQLite data directory. */
import { instancesSuite } from './instances.ts';

instancesSuite({ name: 'SQLite', env: async () => ({}), separateDataDirs: false, revocationBoundMs: 0 });
