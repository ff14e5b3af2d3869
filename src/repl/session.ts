/** A `node:repl` session over running actors: their refs, `ask`/`tell`, builders, `.actors`, `.protocol`, `.keys`. */
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
}

export const PROMPT = 'troupe> ';

function defineCommands(server: REPLServer, actors: Actors, keys: KeyRing | undefined): void {
  server.defineCommand('keys', {
    help: 'Print the signing keys this process sees (state, algorithm, kid) and their lifecycle',
    action() {
      const done = (text: string): void => {
        this.output.write(`${text}\n`);
        this.displayPrompt();
      };
      if (!keys) return done('no signing keys in this session');
      formatKeys(keys).then(done, (error: unknown) => done(`the key set cannot be read: ${(error as Error).message}`));
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

function ioOf(server: () => REPLServer, colors: boolean): ReplIo {
  const show = (value: unknown): string => inspect(value, { colors, depth: 8 });
  return {
    say: (line) => server().output.write(`${line}\n`),
    show: (label, value) => {
      server().output.write(`\n${label} ${show(value)}\n`);
      server().displayPrompt(true);
    },
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
    writer: (value) => inspect(value, { colors: options.colors, depth: 8 }),
  });
  Object.assign(
    server.context,
    replGlobals(
      options.actors,
      ioOf(() => server, options.colors),
    ),
  );
  defineCommands(server, options.actors, options.keys);
  const historyFile = options.historyFile;
  if (historyFile !== undefined) {
    await new Promise<void>((resolve, reject) =>
      server.setupHistory(historyFile, (error) => (error ? reject(error) : resolve())),
    );
  }
  return server;
}
