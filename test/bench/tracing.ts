/**
 * `node test/bench/tracing.ts`: scenarios 13 and 14 alone (tracing off, a build without it, tracing on),
 * printed as the bench's Markdown; `npm run bench` runs it with the others.
 */
import { markdown, type Report } from './report.ts';
import { tracing } from './scenarios-tracing.ts';

const startedAt = new Date();
const report: Report = { measurements: [], claims: [], notes: [] };
await tracing(report, { seconds: Number(process.env['BENCH_SECONDS'] ?? 8), log: (line) => console.log(line) });
console.log(`\n${markdown(report, startedAt, (Date.now() - startedAt.getTime()) / 1000)}`);
