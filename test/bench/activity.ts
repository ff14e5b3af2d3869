/**
 * `node test/bench/activity.ts`: scenario 6 alone (ActivityActors touched, stopped when idle, and
 * what the server retains afterwards), printed as the bench's Markdown with the machine's load
 * average; `npm run bench` runs it with the others. BENCH_ACTIVITY_USERS (default 20000) and
 * BENCH_ACTIVITY_IDLE_MS (default 30000) as there.
 */
import { loadavg } from 'node:os';
import { machine, markdown, type Report } from './report.ts';
import { activity } from './scenarios-activity.ts';

const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};
const startedAt = new Date();
const report: Report = { measurements: [], claims: [], notes: [] };
const users = positive('BENCH_ACTIVITY_USERS', 20_000);
const idleMs = positive('BENCH_ACTIVITY_IDLE_MS', 30_000);
console.log(`troupe bench, scenario 6, on ${machine()}; ${users} users, idle-ms ${idleMs}`);
const loadAtStart = loadavg()[0] ?? 0;
await activity(report, { seconds: 0, log: (line) => console.log(line) }, { users, idleMs });
report.notes.push(
  `Load average of the machine (1 min): ${loadAtStart.toFixed(2)} at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end; above the core count, other work competed for the cores.`,
);
console.log(`\n${markdown(report, startedAt, (Date.now() - startedAt.getTime()) / 1000)}`);
