/** The text of the REPL's `.actors` and `.protocol` commands. */
import { type ActorSystem } from '../messaging/nact.ts';
import { actorTree, type ActorInfo } from '../messaging/introspection.ts';
import { exampleCalls, findProtocol, PROTOCOLS } from './protocols.ts';

/** `troupe-1a2b3c4d://activity/6b02…` → `activity/6b02…`. */
const relative = (path: string): string => path.slice(path.indexOf('://') + 3);

function rows(actors: readonly ActorInfo[], depth: number): [string, number][] {
  return actors.flatMap((a): [string, number][] => [
    [`${'  '.repeat(depth)}${relative(a.path)}`, a.mailbox],
    ...rows(a.children, depth + 1),
  ]);
}

/** The live actor tree, one actor a line: its path under the system, indented by depth, and its mailbox size. */
export function formatActorTree(system: ActorSystem): string {
  const lines = rows(actorTree(system), 1);
  const width = Math.max(0, ...lines.map(([path]) => path.length)) + 2;
  return [`${system.name}://`, ...lines.map(([path, mailbox]) => `${path.padEnd(width)}mailbox ${mailbox}`)].join('\n');
}

const usage = (): string => `usage: .protocol ${PROTOCOLS.map((p) => p.ref).join('|')}`;

/** An actor's message kinds, each with an example `ask`; a usage line for an unknown name. */
export function formatProtocol(name: string): string {
  const entry = findProtocol(name);
  if (!entry && name.trim() !== '') return `no actor named ${JSON.stringify(name.trim())}; ${usage()}`;
  if (!entry) return usage();
  const kinds = Object.keys(entry.examples);
  const width = Math.max(...kinds.map((k) => k.length)) + 2;
  return [
    `${entry.ref}: ${entry.actor}, protocol ${entry.namespace} (${kinds.join(' | ')})`,
    ...exampleCalls(entry).map(([kind, example]) => `  ${kind.padEnd(width)}await ask(${entry.ref}, ${example})`),
  ].join('\n');
}
