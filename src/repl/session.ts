/** A `node:repl` session over running actors: their refs, `ask`/`tell`, builders, `.actors`, `.protocol`, `.keys`. */
import type { AsyncCompleter, CompleterResult } from 'node:readline';
import type { EventEmitter } from 'node:events';
import { start, type REPLServer } from 'node:repl';
import { inspect } from 'node:util';
import type { Actors } from '../composition/actors.ts';
import type { KeyRing } from '../security/key-ring.ts';
import { formatActorTree, formatProtocol } from './commands.ts';
import { formatKeys } from './keys.ts';
import { replGlobals, type ReplIo } from './context.ts';
import { PROTOCOLS } from './protocols.ts';

export interface ReplOptions {
  readonly actors: Actors;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Line editing, completion on Tab and history (a TTY); false reads plain lines. */
  readonly terminal: boolean;
  /** ANSI colours in printed values. */
  readonly colors: boolean;
  /** Where the history persists between sessions; none: no persistent history. */
  readonly historyFile?: string | undefined;
  /** Printed before the first prompt. */
  readonly banner?: string | undefined;
  /** The signing keys, for `.keys`. */
  readonly keys?: KeyRing | undefined;
  /** The id_token keys, for `.keys`. */
  readonly idTokenKeys?: KeyRing | undefined;
}

export const PROMPT = 'troupe> ';

function defineCommands(
  server: REPLServer,
  actors: Actors,
  keys: KeyRing | undefined,
  idTokenKeys: KeyRing | undefined,
): void {
  server.defineCommand('keys', {
    help: 'Print the signing keys this process sees (state, algorithm, kid) and their lifecycle',
    action() {
      const done = (text: string): void => {
        this.output.write(`${text}\n`);
        this.displayPrompt();
      };
      if (!keys) return done('no signing keys in this session');
      formatKeys(keys, idTokenKeys).then(done, (error: unknown) =>
        done(`the key set cannot be read: ${(error as Error).message}`),
      );
    },
  });
  server.defineCommand('actors', {
    help: "Print the live actor tree: each actor's path and mailbox size",
    action() {
      this.output.write(`${formatActorTree(actors.system)}\n`);
      this.displayPrompt();
    },
  });
  server.defineCommand('protocol', {
    help: `List an actor's message kinds with an example of each: .protocol ${PROTOCOLS.map((p) => p.ref).join('|')}`,
    action(name) {
      this.output.write(`${formatProtocol(name)}\n`);
      this.displayPrompt();
    },
  });
}

/** `.protocol ` completes the actor names; everything else completes as Node's REPL does. */
function completeProtocolNames(server: REPLServer): void {
  const fallback = server.completer as AsyncCompleter;
  const names = PROTOCOLS.map((p) => p.ref);
  const completer: AsyncCompleter = (line, callback) => {
    const typed = /^\s*\.protocol\s+(\S*)$/.exec(line)?.[1];
    if (typed === undefined) return fallback.call(server, line, callback);
    callback(null, [names.filter((name) => name.startsWith(typed)), typed] satisfies CompleterResult);
  };
  // readline reads the completer at each Tab; the typings mark it read-only.
  Object.assign(server, { completer });
}

/**
 * A line with a password or secret written out (`password: '…'`, `clientSecret: "…"`) is kept in
 * the history with the value masked, so the history file never holds one.
 */
const SECRET_LITERAL = /(\b\w*(?:password|secret)\w*['"]?\s*:\s*)(['"`])(?:\\.|(?!\2)[^\\])*\2/gi;
export const maskSecrets = (line: string): string => line.replace(SECRET_LITERAL, '$1$2***$2');

function ioOf(server: () => REPLServer, colors: boolean): ReplIo {
  const show = (value: unknown): string => inspect(value, { colors, depth: 8 });
  return {
    // An ask that ends after the session (stopped with the actors on `.exit`) has no one to tell.
    say: (line) => {
      if (!(server() as unknown as { closed?: boolean }).closed) server().output.write(`${line}\n`);
    },
    show: (label, value) => {
      server().output.write(`\n${label} ${show(value)}\n`);
      server().displayPrompt(true);
    },
  };
}

/** What the session prints when Ctrl-C interrupts an evaluation, in place of Node's error. */
export const INTERRUPTED = 'Interrupted.';

const interrupted = (error: unknown): boolean =>
  (error as NodeJS.ErrnoException | null)?.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED';

/**
 * Ctrl-C during an evaluation (a pending `await`, a long loop) prints one line, not Node's raw
 * `ERR_SCRIPT_EXECUTION_INTERRUPTED` error. Node's REPL reports an evaluation's error through one
 * internal handler (not the eval callback, nor the writer alone): Node 24's domain `error`
 * listener, Node 26's `_handleError` method. That handler is kept for every other error, and the
 * interruption is answered here as it would end one (the typed lines cleared, the prompt drawn).
 * On a Node with neither, Node's own message stays.
 */
function quietInterrupts(server: REPLServer): void {
  const answer = (): void => {
    server.output.write(`${INTERRUPTED}\n`);
    server.clearBufferedCommand();
    (server as unknown as { lines: { level: unknown[] } }).lines.level = [];
    if (!(server as unknown as { closed?: boolean }).closed) server.displayPrompt();
  };
  const domain = (server as unknown as { _domain?: EventEmitter })._domain;
  const report = domain?.listeners('error')[0] as ((this: EventEmitter, error: unknown) => void) | undefined;
  if (domain && report) {
    domain.removeListener('error', report);
    domain.on('error', function (this: EventEmitter, error: unknown) {
      if (!interrupted(error)) return report.call(this, error);
      answer();
    });
    return;
  }
  const handling = server as unknown as { _handleError?: (this: REPLServer, error: unknown) => unknown };
  const handle = handling._handleError;
  if (typeof handle !== 'function') return;
  handling._handleError = function (this: REPLServer, error: unknown) {
    if (!interrupted(error)) return handle.call(this, error);
    answer();
    return undefined;
  };
}

/** Opens the session; resolves once the history is loaded. The server emits `exit` on `.exit`, Ctrl-D or close. */
export async function openRepl(options: ReplOptions): Promise<REPLServer> {
  if (options.banner) options.output.write(`${options.banner}\n`);
  const server: REPLServer = start({
    prompt: PROMPT,
    input: options.input,
    output: options.output,
    terminal: options.terminal,
    useColors: options.colors,
    ignoreUndefined: true,
    // Ctrl-C aborts an evaluation that is still running (a long ask), as `.help` says.
    breakEvalOnSigint: true,
    // Enter runs what was typed, never an inline completion preview (`….value` became `.valueOf`).
    preview: false,
    writer: (value) => inspect(value, { colors: options.colors, depth: 8 }),
  });
  // Before the history is set up: its writer then persists the masked lines.
  server.on('history', (history: string[]) => {
    for (let i = 0; i < history.length; i++) history[i] = maskSecrets(history[i] ?? '');
  });
  completeProtocolNames(server);
  quietInterrupts(server);
  Object.assign(
    server.context,
    replGlobals(
      options.actors,
      ioOf(() => server, options.colors),
    ),
  );
  defineCommands(server, options.actors, options.keys, options.idTokenKeys);
  const historyFile = options.historyFile;
  if (historyFile !== undefined) {
    await new Promise<void>((resolve, reject) =>
      server.setupHistory(historyFile, (error) => (error ? reject(error) : resolve())),
    );
  }
  return server;
}
