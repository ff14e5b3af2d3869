/**
 * `node test/bench/ladder.ts`: scenario 15 alone (the layer ladder of claim 10), printed as the
 * bench's Markdown; `npm run bench` runs it with the others. BENCH_SECONDS (default 8) sets the
 * length of each measurement, BENCH_LADDER_ROUNDS (default 2) the interleaved rounds.
 */
import { markdown, type Report } from './report.ts';
import { ladder } from './scenarios-ladder.ts';

const startedAt = new Date();
const report: Report = { measurements: [], claims: [], notes: [] };
const rounds = Number(process.env['BENCH_LADDER_ROUNDS'] ?? 2);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('BENCH_LADDER_ROUNDS must be a positive integer');
await ladder(report, { seconds: Number(process.env['BENCH_SECONDS'] ?? 8), log: (line) => console.log(line) }, rounds);
console.log(`\n${markdown(report, startedAt, (Date.now() - startedAt.getTime()) / 1000)}`);
