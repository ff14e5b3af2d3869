/**
 * `npm run bench`: every hot path of the real server, each against a baseline measured in the same
 * run. Writes bench/results.md and prints it. Exits non-zero only when something crashes; a missed
 * target is reported in the table, not turned into a failure.
 *
 * BENCH_SECONDS (default 8) sets the length of each measurement; BENCH_ACTIVITY_USERS and
 * BENCH_ACTIVITY_IDLE_MS the size and idle time of the activity scenario. Its default is scaled down
 * to 20k users to keep the whole bench short; BENCH_ACTIVITY_USERS=100000 runs the full size.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { markdown, machine, type Report } from './report.ts';
import { tempDir } from './harness.ts';
import { listAll, stormIsolation, tokenRate, type BenchSettings } from './scenarios-security.ts';
import { employees, startUp } from './scenarios-data.ts';
import { activity } from './scenarios-activity.ts';
import { sharedWrites, workers } from './scenarios-processes.ts';
import { hotPath } from './scenarios-hotpath.ts';
import { ladder } from './scenarios-ladder.ts';
import { features } from './scenarios-features.ts';
import { patches } from './scenarios-patches.ts';
import { signingKeys } from './scenarios-keys.ts';
import { machineToMachine } from './scenarios-machine.ts';
import { OPENID_NOTE, openId } from './scenarios-openid.ts';
import { tracing } from './scenarios-tracing.ts';

const envInt = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer`);
  return v;
};

function johnHash(): string {
  const data = JSON.parse(readFileSync('data/initial-data.json', 'utf8')) as {
    users: { username: string; password: string }[];
  };
  const hash = data.users.find((u) => u.username === 'john.doe')?.password;
  if (!hash) throw new Error('john.doe is missing from data/initial-data.json');
  return hash;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const settings: BenchSettings = { seconds: envInt('BENCH_SECONDS', 8), log: (line) => console.log(line) };
  const users = envInt('BENCH_ACTIVITY_USERS', 20_000);
  const idleMs = envInt('BENCH_ACTIVITY_IDLE_MS', 30_000);
  console.log(`troupe bench on ${machine()}; ${settings.seconds} s per measurement`);
  if (users < 100_000)
    console.log(`activity scenario scaled down to ${users} users (BENCH_ACTIVITY_USERS=100000 for the full size)`);
  const loadAtStart = loadavg()[0] ?? 0;
  const report: Report = { measurements: [], claims: [], notes: [] };
  const dir = tempDir('secured');
  const { secured, token } = await listAll(dir, report, settings);
  const bodies = await tokenRate(secured, johnHash(), report, settings);
  await stormIsolation(secured, token, bodies, report, settings);
  await secured.stop();
  await hotPath(report, settings);
  await ladder(report, settings);
  await features(report, settings);
  await patches(report, settings);
  await signingKeys(report, settings);
  await machineToMachine(report, settings);
  await openId(report, settings);
  await tracing(report, settings);
  await employees(report, settings);
  await activity(report, settings, { users, idleMs });
  await workers(report, settings);
  await sharedWrites(report, settings);
  await startUp(dir, report, settings);
  report.notes.push(
    ...notes(settings.seconds, users, idleMs),
    `Load average of the machine (1 min): ${loadAtStart.toFixed(2)} at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end; above the core count, other work competed for the cores and every figure is lower and noisier.`,
  );
  const text = markdown(report, startedAt, (Date.now() - startedAt.getTime()) / 1000);
  mkdirSync('bench', { recursive: true });
  writeFileSync('bench/results.md', text);
  console.log(`\n${text}`);
}

function notes(seconds: number, users: number, idleMs: number): string[] {
  return [
    `Each figure comes from autocannon in its own process against a server in its own process, on loopback; ${seconds} s per measurement after a 2 s warm-up. Both share the machine's cores.`,
    'listAll throughput is the best of two interleaved runs per server (10 connections), so a slow moment of the machine hits every server alike.',
    "The BCrypt baseline uses john.doe's cost-10 hash from data/initial-data.json; the password-grant loads (claims 3, 4, 12 and 20) send the logins of 48 accounts in turn, hashed at the cost of their baseline, so that no two logins in flight are alike (identical ones share one check); the login throttle and the per-account login bound (security.jwt.max-logins-per-user) are set out of reach.",
    'Employees and users are seeded straight into SQLite (one transaction) before the server starts; creates go through HTTP.',
    `Activity: ${users} distinct users${users < 100_000 ? ' (scaled down from 100k; BENCH_ACTIVITY_USERS=100000 for the full size)' : ''}, each touched once by GET /api/users/activity; idle-ms ${idleMs} (the note of its row gives the peak of actors live at once, sampled every 2 s).`,
    'RSS is VmRSS of the serving process (with its workers, for server.workers=2) from /proc/<pid>/status at the end of its measurement.',
    'Claims 10 and 11 run troupe and the bare handlers on one data directory (1,000 employees, 100 users), best of two interleaved rounds each, 10 connections; the activity bodies rotate through the 100 users.',
    'The ladder (15) runs the bare server with 0 to 4 of the real layers in front of its handler, the floor (the bearer check and the actor ask alone on the bare server) and the full server on one data directory (1,000 employees), best of two interleaved rounds each, 10 connections; CPU µs/request is user + system time of the whole server process (/proc/<pid>/stat) over the round, the fewest of the rounds.',
    'Claim 16 runs a default server and one whose data directory has the features in use (a key set rotated twice by `npm run keys`: retired, active and next keys; 1,000 more accounts, 10 of them disabled through the admin API; a security.clients-file of 50 clients) on copies of one seeded file (1,000 employees), best of two interleaved rounds each, 10 connections; both must answer the same status, ETag and body first.',
    'Claims 18 and 19 run troupe and the bare OAuth handlers with one HS256 key (security.signing-key), issuer, audience and a security.clients-file client, 32 connections, best of two interleaved rounds each; both must answer the same token fields and claims and the same introspections first. Claim 20 runs the BCrypt pool of src/security/passwords.ts with a thread per core in the bench process, before and after the password grant (8 connections).',
    OPENID_NOTE,
    'Claim 8 runs both servers on one data directory, one after the other, best of two interleaved rounds each; autocannon runs on the same 2 cores as the workers.',
  ];
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
