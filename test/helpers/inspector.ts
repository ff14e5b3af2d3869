/**
 * What another Node process retains, read through its inspector (started with
 * `--inspect=127.0.0.1:0`): full collections first, then its memory. A figure read at a random
 * moment also weighs garbage V8 has not yet collected and a young generation it sized for the
 * load, so it measures the collector's schedule, not what the process keeps (docs/reliability.md).
 */

/** Bytes, as `process.memoryUsage()` reports them in the inspected process. */
export interface Memory {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
}

export interface Inspector {
  /** Two full collections in the process (the second finds what finalizers of the first freed), then its memory. */
  memoryAfterCollection(): Promise<Memory>;
  close(): void;
}

/** The inspector's WebSocket address in what Node prints on stderr when started with `--inspect`. */
export function inspectorAddress(stderr: string): string | undefined {
  return /^Debugger listening on (ws:\/\/\S+)$/m.exec(stderr)?.[1];
}

interface Answer {
  readonly id: number;
  readonly result?: { readonly result?: { readonly value?: unknown } };
  readonly error?: { readonly message: string };
}

const MEMORY = 'JSON.stringify(process.memoryUsage())';

/** Connects to the inspector at `address` (from {@link inspectorAddress}). */
export async function connectInspector(address: string): Promise<Inspector> {
  const socket = new WebSocket(address);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`no inspector at ${address}`)), { once: true });
  });
  let last = 0;
  const waiting = new Map<number, (answer: Answer) => void>();
  socket.addEventListener('message', (event) => {
    const answer = JSON.parse(String(event.data)) as Partial<Answer>;
    if (typeof answer.id === 'number') waiting.get(answer.id)?.(answer as Answer);
  });
  const call = async (method: string, params: Record<string, unknown> = {}): Promise<Answer> => {
    const id = ++last;
    const answer = await new Promise<Answer>((resolve) => {
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
    waiting.delete(id);
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer;
  };
  return {
    async memoryAfterCollection() {
      await call('HeapProfiler.collectGarbage');
      await call('HeapProfiler.collectGarbage');
      const answer = await call('Runtime.evaluate', { expression: MEMORY, returnByValue: true });
      const { rss, heapUsed, external } = JSON.parse(String(answer.result?.result?.value)) as Memory;
      return { rss, heapUsed, external };
    },
    close: () => socket.close(),
  };
}
