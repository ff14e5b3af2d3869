/**
 * The asks of the process that wait for a reply: one slot each, in a numbered table. A reply
 * reaches its slot through the reference the ask was sent with (what nact calls a temporary
 * reference), which names the slot's number and its ask's sequence number: a late reply to an ask
 * that timed out finds its number taken by another ask, or empty, and is dropped.
 *
 * Why a table of numbered slots, not a Map and a Set: those live as long as the process, so they
 * sit in V8's old generation, and a Map or Set that grows, shrinks or fills with deleted entries
 * rebuilds its table there, while the table it leaves keeps its entries until the next full
 * collection. The asks of a busy server came and went through two of them thousands of times a
 * second: every abandoned table held the slots of its moment, and through them each asker's
 * promise, its continuation and the request behind it, so that every scavenge kept them and moved
 * them to the old generation (megabytes a second, scavenges seven times as long, a heap four to
 * five times as large). The slots here are an array reused number by number, and a settled slot
 * is cleared from it at once: nothing abandoned points at a request.
 */
import { AskTimeoutError } from './errors.ts';

const MAX_TIMEOUT_MS = 2_147_483_647; // Node's longest timer; a longer one would fire at once

/** The reference an ask is sent with: a reply told to it settles the ask's slot. */
export interface AskRef {
  readonly type: 'temp';
  /** The ask's sequence number, unique in the process (nact's own temporary references are never in this table). */
  readonly id: number;
  /** The number of its slot in the table. */
  readonly slot: number;
  readonly system: { readonly name: string };
}

/** An ask waiting for its reply, until its deadline (epoch ms). */
class ReplySlot {
  readonly seq: number;
  readonly index: number;
  readonly systemName: string;
  readonly timeoutMs: number;
  readonly deadline: number;
  private readonly onReply: (reply: unknown) => void;
  private readonly onError: (error: Error) => void;
  constructor(
    seq: number,
    index: number,
    systemName: string,
    timeoutMs: number,
    onReply: (reply: unknown) => void,
    onError: (error: Error) => void,
  ) {
    this.seq = seq;
    this.index = index;
    this.systemName = systemName;
    this.timeoutMs = timeoutMs;
    this.onReply = onReply;
    this.onError = onError;
    this.deadline = Date.now() + Math.min(timeoutMs, MAX_TIMEOUT_MS);
  }
  resolve(reply: unknown): void {
    release(this);
    this.onReply(reply);
  }
  reject(error: Error): void {
    release(this);
    this.onError(error);
  }
}

/** Slot number → its waiting ask; an answered number is empty until an ask takes it again. */
const slots: (ReplySlot | undefined)[] = [];
/** The empty numbers, a stack whose array never shrinks (a shrunk array grows again by copying). */
const free: number[] = [];
let freeCount = 0;
let waiting = 0;
let lastSeq = 0;

function release(slot: ReplySlot): void {
  if (slots[slot.index] !== slot) return;
  slots[slot.index] = undefined;
  free[freeCount++] = slot.index;
  waiting--;
}

/**
 * Opens a slot for an ask to an actor of the system `system` and returns the reference its reply
 * goes to: the first reply calls `onReply`, a deadline passed or a stop `onError`, once.
 */
export function openSlot(
  system: { readonly name: string },
  timeoutMs: number,
  onReply: (reply: unknown) => void,
  onError: (error: Error) => void,
): AskRef {
  const index = freeCount > 0 ? (free[--freeCount] ?? slots.length) : slots.length;
  const seq = ++lastSeq;
  slots[index] = new ReplySlot(seq, index, system.name, timeoutMs, onReply, onError);
  waiting++;
  sweeper ??= setInterval(sweep, SWEEP_MS); // ref'd, as a timer per ask was: a waiting ask keeps the process alive
  return { type: 'temp', id: seq, slot: index, system };
}

/** The waiting ask `ref` names, if it still waits (any other reference, or a settled ask: none). */
export function waitingAsk(ref: { readonly id?: unknown; readonly slot?: unknown }): ReplySlot | undefined {
  if (typeof ref.slot !== 'number') return undefined;
  const slot = slots[ref.slot];
  return slot !== undefined && slot.seq === ref.id ? slot : undefined;
}

/** Rejects every ask to the system named `systemName` that still waits. */
export function rejectWaiting(systemName: string, error: () => Error): void {
  for (const slot of slots) if (slot !== undefined && slot.systemName === systemName) slot.reject(error());
}

/** How many asks to the system named `systemName` wait for their reply. */
export function waitingCount(systemName: string): number {
  if (waiting === 0) return 0;
  let n = 0;
  for (const slot of slots) if (slot !== undefined && slot.systemName === systemName) n++;
  return n;
}

/**
 * One timer checks every waiting ask (a timer per ask cost an allocation and two list operations
 * on every request). An ask times out within {@link SWEEP_MS} after its deadline. The timer stops
 * at a sweep that finds no ask waiting, not when the last reply arrives: requests one after
 * another would otherwise start and stop it each time.
 */
const SWEEP_MS = 25;
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  if (waiting === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
    return;
  }
  const now = Date.now();
  for (const slot of slots)
    if (slot !== undefined && slot.deadline <= now) slot.reject(new AskTimeoutError(slot.timeoutMs));
}
