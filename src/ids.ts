/** Record ids in the MongoDB ObjectId form (24 lowercase hex characters), whatever the store. */
import { ObjectId } from 'mongodb';

declare const idBrand: unique symbol;
/** A 24-hex-character ObjectId string. */
export type ObjectIdString = string & { readonly [idBrand]: true };

/** The form of an id: 24 lowercase hexadecimal characters. */
export const OBJECT_ID = /^[0-9a-f]{24}$/;

export const newId = (): ObjectIdString => new ObjectId().toHexString() as ObjectIdString;

export const isObjectId = (s: unknown): s is ObjectIdString => typeof s === 'string' && OBJECT_ID.test(s);
