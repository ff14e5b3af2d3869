/**
 * The rules of several instances on MongoDB, each instance with a data directory of its own (as on
 * two machines: nothing but the database is shared), when a server is at hand (test/helpers/mongo.ts).
 */
import { MongoClient } from 'mongodb';
import { MONGO_SKIP_REASON, mongoUri, skipWithReason, stopMongo, withDatabase } from '../helpers/mongo.ts';
import { instancesSuite } from './instances.ts';

const SYNC_MS = 100;

if (MONGO_SKIP_REASON) {
  skipWithReason('several processes: two instances on one store (MongoDB)');
} else {
  let uri = '';
  instancesSuite({
    name: 'MongoDB',
    async env() {
      uri = withDatabase(await mongoUri(), `troupe_instances_${process.pid}_${Date.now().toString(36)}`);
      return {
        MONGODB_URI: uri,
        SECURITY_SIGNING_KEY: 'a-key-shared-by-every-machine-0123456789abcdef',
        SECURITY_REVOCATION_SYNC_MS: String(SYNC_MS),
      };
    },
    separateDataDirs: true,
    revocationBoundMs: SYNC_MS + 50,
    async teardown() {
      const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 3000 }).connect();
      await client.db().dropDatabase();
      await client.close();
      await stopMongo();
    },
  });
}
