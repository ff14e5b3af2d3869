/**
 * The store cannot be reached (a network or server-selection failure): worth retrying later.
 * Every adapter rejects with it for that case, and supervision answers the sender `unavailable`
 * (HTTP 503 with Retry-After) instead of `internal`. What the store holds can be unusable too: the
 * signing-key set's `KeyStoreUnreadableError` is one of these, answered the same way until the
 * set is put right.
 */
export class StoreUnavailableError extends Error {
  override readonly name: string = 'StoreUnavailableError';
}

/** A connection string's credentials, should a message ever carry one. */
const CREDENTIALS = /(mongodb(?:\+srv)?:\/\/)[^@/\s]*@/gi;

/**
 * Why a store cannot be reached, for the logs: the messages and codes down the error's chain of
 * causes (`connect ECONNREFUSED 10.0.0.5:27017`, `querySrv ENOTFOUND _mongodb._tcp.…`, a TLS or
 * wire version complaint), never a credential of a connection string.
 */
export function causeOf(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    const text = `${e.message}${typeof code === 'string' && !e.message.includes(code) ? ` (${code})` : ''}`;
    if (!parts.includes(text)) parts.push(text);
  }
  return (parts.join(': ') || 'unknown error').replace(CREDENTIALS, '$1…@');
}
