/** The API's page cursors, made and read in `src/cursors.ts` (the REPL's pages carry the same). */
export { accountCursor, accountIdOf, historyCursor, historySeqOf, searchCursor, searchKeyOf } from '../src/cursors.ts';
