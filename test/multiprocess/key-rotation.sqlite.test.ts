/** A key rotation at two instances on one SQLite data directory. */
import { keyRotationSuite } from './key-rotation.ts';

// An empty MONGODB_URI keeps the instances and the command on SQLite where MongoDB suites run too.
keyRotationSuite({ name: 'SQLite', env: async () => ({ MONGODB_URI: '' }), separateDataDirs: false, changeBoundMs: 0 });
