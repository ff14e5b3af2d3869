import type { Command } from '../protocol.ts';

/** What a `Grant` message says besides its grant: the client it is for, where it comes from. */
export type GrantRequest = Omit<Extract<Command, { type: 'Grant' }>, 'type' | 'grant' | 'sender'>;
