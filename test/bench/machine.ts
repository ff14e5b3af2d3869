/**
 * `node test/bench/machine.ts`: scenarios 18–20 alone (client_credentials and introspection against
 * bare Koa handlers, the password grant against the BCrypt pool), printed as the bench's Markdown
 * with the machine's load average; `npm run bench` runs them with the others. BENCH_SECONDS
 * (default 8) sets the length of each measurement, BENCH_MACHINE_ROUNDS (default 2) the
 * interleaved rounds of 18 and 19.
 */
import { loadavg } from 'node:os';
import { machine, markdown, type Report } from './report.ts';
import { machineToMachine } from './scenarios-machine.ts';

const startedAt = new Date();
const report: Report = { measurements: [], claims: [], notes: [] };
const rounds = Number(process.env['BENCH_MACHINE_ROUNDS'] ?? 2);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('BENCH_MACHINE_ROUNDS must be a positive integer');
const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
console.log(`troupe bench, scenarios 18–20, on ${machine()}; ${seconds} s per measurement`);
const loadAtStart = loadavg()[0] ?? 0;
await machineToMachine(report, { seconds, log: (line) => console.log(line) }, rounds);
report.notes.push(
  `Load average of the machine (1 min): ${loadAtStart.toFixed(2)} at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end; above the core count, other work competed for the cores.`,
);
console.log(`\n${markdown(report, startedAt, (Date.now() - startedAt.getTime()) / 1000)}`);
