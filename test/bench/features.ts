/**
 * `node test/bench/features.ts`: scenario 16 alone (claim 10's employee get on a default server and
 * on one with the key set rotated, 1,000 more accounts and 50 registered clients), printed as the
 * bench's Markdown; `npm run bench` runs it with the others. BENCH_SECONDS (default 8) sets the
 * length of each measurement, BENCH_FEATURES_ROUNDS (default 2) the interleaved rounds.
 */
import { markdown, type Report } from './report.ts';
import { features } from './scenarios-features.ts';

const startedAt = new Date();
const report: Report = { measurements: [], claims: [], notes: [] };
const rounds = Number(process.env['BENCH_FEATURES_ROUNDS'] ?? 2);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('BENCH_FEATURES_ROUNDS must be a positive integer');
await features(
  report,
  { seconds: Number(process.env['BENCH_SECONDS'] ?? 8), log: (line) => console.log(line) },
  rounds,
);
console.log(`\n${markdown(report, startedAt, (Date.now() - startedAt.getTime()) / 1000)}`);
