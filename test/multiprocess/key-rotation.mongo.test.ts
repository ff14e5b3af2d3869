/**
 * A key rotation at two instances on MongoDB, each with a data directory of its own (as on two
 * machines), when a server is at hand (test/helpers/mongo.ts).
 */
import { MongoClient } from 'mongodb';
import { MONGO_SKIP_REASON, mongoUri, skipWithReason, stopMongo, withDatabase } from '../helpers/mongo.ts';
import { keyRotationSuite } from './key-rotation.ts';

const SYNC_MS = 100;

if (MONGO_SKIP_REASON) {
  skipWithReason('several processes: a key rotation at two instances (MongoDB)');
} else {
  let uri = '';
  keyRotationSuite({
    name: 'MongoDB',
    async env() {
      uri = withDatabase(await mongoUri(), `troupe_rotation_${process.pid}_${Date.now().toString(36)}`);
      return {
        MONGODB_URI: uri,
        SECURITY_KEYS_ENCRYPTION_SECRET: 'a-secret-every-machine-shares-0123',
        SECURITY_REVOCATION_SYNC_MS: String(SYNC_MS),
      };
    },
    separateDataDirs: true,
    changeBoundMs: SYNC_MS + 50,
    async teardown() {
      const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 3000 }).connect();
      await client.db().dropDatabase();
      await client.close();
      await stopMongo();
    },
  });
}
