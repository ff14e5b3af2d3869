/** Self time of a V8 CPU profile, grouped by part of troupe's stack (see `profile.ts`). */

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

const KOA =
  /node_modules\/(koa|koa-compose|delegates|@koa|on-finished|statuses|mime-types|mime-db|type-is|content-type|vary|accepts|negotiator|cache-content-type|http-errors|encodeurl|escape-html|destroy|fresh|only|parseurl|ee-first|path-to-regexp)\//;

/** The part of the stack a function belongs to, by its script and name; `idle` is left out of the totals. */
function partOf({ functionName: fn, url }: CallFrame): string {
  if (fn === '(idle)') return 'idle';
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(program)') return 'V8 (program)';
  if (fn === 'writev' || fn === 'writeUtf8String' || fn === 'writeBuffer') return 'socket writes';
  if ((url === '' && ['get', 'all', 'run', 'iterate', 'Statement'].includes(fn)) || url.includes('better-sqlite3'))
    return 'SQLite';
  if (url === 'node:inspector') return 'the profiler itself';
  if (url.includes('node_modules/zod/')) return 'zod';
  if (url.includes('node_modules/prom-client/')) return 'metrics (prom-client)';
  if (url.includes('node_modules/pino')) return 'logging';
  if (KOA.test(url)) return 'Koa, koa-compose, delegates and helpers';
  if (url.includes('node_modules/nact/') || url.includes('/src/messaging/'))
    return 'actor messaging (nact and its wrapper)';
  if (url.includes('/actors/') || url.endsWith('/src/system.ts')) return 'actors';
  if (url.includes('/src/security/') || url.includes('bearer-auth') || url.includes('node_modules/jose/'))
    return 'bearer check, token cache, denylist';
  if (url.includes('/http/')) return 'our HTTP layer (frame, routing, routes)';
  if (url.includes('/src/stores/')) return 'stores (JavaScript side)';
  if (url.startsWith('node:')) return "Node's HTTP code and streams";
  return 'other';
}

export interface Part {
  readonly part: string;
  readonly microseconds: number;
  readonly share: number;
}

/** Busy self time per request by part, largest first. */
export function selfTimeByPart(profile: CpuProfile, requests: number): Part[] {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const totals = new Map<string, number>();
  let busy = 0;
  (profile.samples ?? []).forEach((id, i) => {
    const frame = frames.get(id);
    const part = frame ? partOf(frame) : 'other';
    if (part === 'idle') return;
    const micros = profile.timeDeltas?.[i] ?? 0;
    busy += micros;
    totals.set(part, (totals.get(part) ?? 0) + micros);
  });
  return [...totals]
    .map(([part, micros]) => ({ part, microseconds: micros / requests, share: busy === 0 ? 0 : micros / busy }))
    .sort((a, b) => b.microseconds - a.microseconds);
}

interface HeapNode {
  readonly callFrame: CallFrame & { readonly lineNumber?: number };
  readonly selfSize: number;
  readonly children: readonly HeapNode[];
}
/** What `HeapProfiler.stopSampling` returns (the parts read here). */
export interface SamplingHeapProfile {
  readonly head: HeapNode;
}

/** Bytes allocated per request by the function that allocated them (script:line), largest first. */
export function allocationsByFunction(
  profile: SamplingHeapProfile,
  requests: number,
): { readonly where: string; readonly bytes: number }[] {
  const totals = new Map<string, number>();
  const visit = (node: HeapNode): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const script = url.replace(/^.*\/(node_modules\/)/, '$1').replace(/^file:\/\/.*?\/(src|http|actors|test)\//, '$1/');
    const where = `${functionName || '(anonymous)'} ${script}:${(lineNumber ?? -1) + 1}`;
    if (node.selfSize > 0) totals.set(where, (totals.get(where) ?? 0) + node.selfSize);
    node.children.forEach(visit);
  };
  visit(profile.head);
  return [...totals].map(([where, bytes]) => ({ where, bytes: bytes / requests })).sort((a, b) => b.bytes - a.bytes);
}
