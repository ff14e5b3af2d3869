/**
 * `node test/bench/patches.ts`: scenario 17 alone (what each change to nact's behaviour buys),
 * printed as the bench's Markdown; `npm run bench` runs it
 * with the others. BENCH_SECONDS (default 8) sets the length of each measurement,
 * BENCH_PATCHES_ROUNDS (default 2) the interleaved rounds.
 */
import { markdown, type Report } from './report.ts';
import { patches } from './scenarios-patches.ts';

const startedAt = new Date();
const report: Report = { measurements: [], claims: [], notes: [] };
const rounds = Number(process.env['BENCH_PATCHES_ROUNDS'] ?? 2);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('BENCH_PATCHES_ROUNDS must be a positive integer');
await patches(report, { seconds: Number(process.env['BENCH_SECONDS'] ?? 8), log: (line) => console.log(line) }, rounds);
console.log(`\n${markdown(report, startedAt, (Date.now() - startedAt.getTime()) / 1000)}`);
