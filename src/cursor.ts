/** Opaque pagination cursors: base64url JSON that clients pass back unchanged. */

export const encodeCursor = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** The decoded value, or undefined when the cursor is not one of ours (callers answer 400). */
export function decodeCursor(cursor: string): unknown {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) return undefined;
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
