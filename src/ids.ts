/** Record ids in the MongoDB ObjectId form (24 lowercase hex characters), whatever the store. */
import { ObjectId } from 'mongodb';

declare const idBrand: unique symbol;
/** A 24-hex-character ObjectId string. */
export type ObjectIdString = string & { readonly [idBrand]: true };

const HEX24 = /^[0-9a-f]{24}$/;

export const newId = (): ObjectIdString => new ObjectId().toHexString() as ObjectIdString;

export const isObjectId = (s: unknown): s is ObjectIdString => typeof s === 'string' && HEX24.test(s);
