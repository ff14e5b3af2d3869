/**
 * `node test/bench/openid.ts`: scenarios 21 and 22 alone (the code flow's token request with an
 * id_token, and UserInfo, each against a bare Koa handler), printed as the bench's Markdown with
 * the machine's load average; `npm run bench` runs them with the others. BENCH_SECONDS (default 8)
 * sets the length of each measurement, BENCH_OPENID_ROUNDS (default 2) the interleaved rounds.
 */
import { loadavg } from 'node:os';
import { machine, markdown, type Report } from './report.ts';
import { OPENID_NOTE, openId } from './scenarios-openid.ts';

const startedAt = new Date();
const report: Report = { measurements: [], claims: [], notes: [] };
const rounds = Number(process.env['BENCH_OPENID_ROUNDS'] ?? 2);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('BENCH_OPENID_ROUNDS must be a positive integer');
const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
console.log(`troupe bench, scenarios 21 and 22, on ${machine()}; ${seconds} s per measurement`);
const loadAtStart = loadavg()[0] ?? 0;
await openId(report, { seconds, log: (line) => console.log(line) }, rounds);
report.notes.push(
  OPENID_NOTE,
  `Load average of the machine (1 min): ${loadAtStart.toFixed(2)} at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end; above the core count, other work competed for the cores.`,
);
console.log(`\n${markdown(report, startedAt, (Date.now() - startedAt.getTime()) / 1000)}`);
