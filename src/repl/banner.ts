/** The REPL's first lines: where its actors run, and every name in scope, read from the protocols so none is left out. */
import { PROTOCOLS } from './protocols.ts';

export function replBanner(dataDir: string, memory: boolean): string {
  return [
    `troupe REPL: actors on ${dataDir}${memory ? ' (temporary, removed on exit)' : ''}; no HTTP port.`,
    `In scope: ${PROTOCOLS.map((p) => p.ref).join(', ')}; ask(ref, msg, timeoutMs?), tell(ref, msg);`,
    `  Get, Post, Put, Delete (UserActor); ${PROTOCOLS.map((p) => p.namespace).join(', ')} (every protocol).`,
    'Commands: .actors, .protocol NAME, .keys, .help; .exit or Ctrl-D to leave.',
  ].join('\n');
}
