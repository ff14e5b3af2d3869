/**
 * The page cursors of HTTP in the REPL: a search page answers `nextCursor` as HTTP does (the same
 * opaque string, so a page may be continued over HTTP, and the reverse), beside the typed `next`
 * (or `nextAfterId`) it always had; and a paging field (a search's `after`, a history's `before`,
 * `findAccounts`' `afterId`) takes such a cursor where it takes a position.
 */
import { accountCursor, accountIdOf, historyCursor, historySeqOf, searchCursor, searchKeyOf } from '../cursors.ts';
import { isObjectId } from '../ids.ts';
import type { SearchKey } from '../stores/employee-store.ts';

type Fields = Readonly<Record<string, unknown>>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null;

/** The cursor HTTP answers after `page`, when `page` is one of the three pages; undefined otherwise. */
function cursorAfter(page: Fields): string | null | undefined {
  if (Array.isArray(page['items']) && 'next' in page) {
    const next = page['next'] as SearchKey | null;
    return next === null ? null : searchCursor(next);
  }
  if (Array.isArray(page['activities']) && 'next' in page) {
    const next = page['next'] as number | null;
    const userId: unknown = (page['activities'][0] as Fields | undefined)?.['userId'];
    if (next === null) return null;
    return isObjectId(userId) ? historyCursor(userId, next) : undefined;
  }
  if (Array.isArray(page['items']) && 'nextAfterId' in page) {
    const next = page['nextAfterId'] as number | null;
    return next === null ? null : accountCursor(next);
  }
  return undefined;
}

/** A reply, with `nextCursor` added to a search page's value. */
export function withNextCursor(reply: unknown): unknown {
  if (!isObject(reply) || reply['ok'] !== true || !isObject(reply['value'])) return reply;
  const value = reply['value'];
  const nextCursor = cursorAfter(value);
  return nextCursor === undefined ? reply : { ...reply, value: { ...value, nextCursor } };
}

/**
 * A message with the cursor in a paging field read back into the position it stands for. A string
 * that is no cursor of this kind is left as it is: the protocol's check then refuses it.
 */
export function positionsOf(message: unknown): unknown {
  if (!isObject(message)) return message;
  const { type } = message;
  if (type === 'Search' && isObject(message['criteria']) && typeof message['criteria']['after'] === 'string') {
    const after = searchKeyOf(message['criteria']['after']);
    return after ? { ...message, criteria: { ...message['criteria'], after } } : message;
  }
  if (type === 'History' && typeof message['before'] === 'string' && isObjectId(message['userId'])) {
    const before = historySeqOf(message['before'], message['userId']);
    return before === undefined ? message : { ...message, before };
  }
  if (type === 'FindAccounts' && typeof message['afterId'] === 'string') {
    const afterId = accountIdOf(message['afterId']);
    return afterId === undefined ? message : { ...message, afterId };
  }
  return message;
}
