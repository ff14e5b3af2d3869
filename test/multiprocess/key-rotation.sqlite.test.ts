/** A key rotation at two instances on one SQLite data directory. */
import { keyRotationSuite } from './key-rotation.ts';

keyRotationSuite({ name: 'SQLite', env: async () => ({}), separateDataDirs: false, changeBoundMs: 0 });
