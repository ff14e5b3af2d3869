/**
 * Record ids in the MongoDB ObjectId form (24 lowercase hex characters), whatever the store. Made
 * here as the ObjectId specification describes, so that no store but MongoDB loads its driver.
 */
import { randomBytes, randomInt } from 'node:crypto';

declare const idBrand: unique symbol;
/** A 24-hex-character ObjectId string. */
export type ObjectIdString = string & { readonly [idBrand]: true };

/** The form of an id: 24 lowercase hexadecimal characters. */
export const OBJECT_ID = /^[0-9a-f]{24}$/;

/** 5 random bytes chosen once per process (each cluster worker loads this module afresh). */
const PROCESS_UNIQUE = randomBytes(5);
/** A 3-byte counter starting at a random value, as the driver's own. */
let counter = randomInt(0, 0x1000000);

/**
 * A new id: 4 bytes of seconds since the epoch (big-endian), the process's 5 random bytes, and the
 * counter's 3 bytes. Ids made in one process within one second sort in the order they were made.
 */
export function newId(): ObjectIdString {
  const bytes = Buffer.allocUnsafe(12);
  bytes.writeUInt32BE(Math.floor(Date.now() / 1000) % 0x100000000, 0);
  PROCESS_UNIQUE.copy(bytes, 4);
  counter = (counter + 1) % 0x1000000;
  bytes.writeUIntBE(counter, 9, 3);
  return bytes.toString('hex') as ObjectIdString;
}

export const isObjectId = (s: unknown): s is ObjectIdString => typeof s === 'string' && OBJECT_ID.test(s);
