/**
 * `npm run bench:profile [-- get|listAll|activity|clientCredentials|introspect]`: the CPU cost of one hot path, per request.
 *
 * Starts troupe in this process (a temporary data directory, 1,000 seeded employees, logging at
 * `warn`), drives it with autocannon from another process (the load-worker of the bench), and
 * prints the best CPU µs per request of this process over `PROFILE_ROUNDS` runs of
 * `PROFILE_REQUESTS` requests. With `PROFILE_OUT=<file.cpuprofile>` it then records a V8 CPU
 * profile of one more run and prints its self time grouped by part of the stack (open the file in
 * Chrome's DevTools for the full tree). With `PROFILE_ALLOC=1` it samples the allocations of one
 * more run (every object, also those the next scavenge collects) and prints the bytes allocated
 * per request by the function that allocated them: what the young generation has to sweep. With
 * `PROFILE_ALLOC=survivors` it samples only the objects that outlive a scavenge (moved to the old
 * generation, or allocated there), whether or not a full collection takes them later: what makes
 * scavenges long and the heap large. Figures move ±15 % between runs on a shared machine.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startTroupe } from '../../src/composition/troupe.ts';
import { basic, login } from '../helpers/tokens.ts';
import { load, tempDir, type LoadSpec } from './harness.ts';
import { MACHINE_CLIENT, machineClientRegistration } from './scenarios-machine.ts';
import { seedEmployees, seedUsers } from './seed.ts';
import { allocationsByFunction, selfTimeByPart, type CpuProfile, type SamplingHeapProfile } from './profile-parts.ts';

const which = process.argv[2] ?? 'get';
const rounds = Number(process.env['PROFILE_ROUNDS'] ?? 3);
const requests = Number(process.env['PROFILE_REQUESTS'] ?? 20_000);

const dir = tempDir('profile');
seedEmployees(dir, 1000);
const users = seedUsers(dir, 100);
const clientsFile = join(dir, 'clients.json');
writeFileSync(clientsFile, JSON.stringify([machineClientRegistration()]));
const troupe = await startTroupe(
  loadConfig({
    properties: {
      'data.dir': dir,
      'server.port': '0',
      'logging.level': 'warn',
      'security.clients-file': clientsFile,
      // The machine-to-machine paths as bench scenarios 18 and 19 run them: a configured HS256 key.
      ...(which === 'clientCredentials' || which === 'introspect'
        ? { 'security.signing-key': randomBytes(48).toString('base64url') }
        : {}),
    },
  }),
  createLogger('warn'),
);
try {
  const token = (await login(troupe.url)).access_token;
  const auth = { Authorization: `Bearer ${token}` };
  const firstEmployee = async (): Promise<string> => {
    const page = await fetch(`${troupe.url}/api/employee/search`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{"limit":1}',
    });
    return String(((await page.json()) as { items: { id: string }[] }).items[0]?.id);
  };
  const machineForm = {
    Authorization: basic(MACHINE_CLIENT.id, MACHINE_CLIENT.secret),
    'Content-Type': 'application/x-www-form-urlencoded',
  };
  const machineToken = async (): Promise<string> => {
    const answer = await fetch(`${troupe.url}/oauth/token`, {
      method: 'POST',
      headers: machineForm,
      body: 'grant_type=client_credentials',
    });
    return String(((await answer.json()) as { access_token: string }).access_token);
  };
  const bodies = join(dir, 'activities.txt');
  writeFileSync(
    bodies,
    users.map((userId, i) => JSON.stringify({ userId, type: 'PROFILE', detail: { i } })).join('\n'),
  );
  const specs: Record<string, () => Promise<Omit<LoadSpec, 'amount'>>> = {
    get: async () => ({
      url: troupe.url,
      path: `/api/employee/${await firstEmployee()}`,
      headers: auth,
      connections: 10,
    }),
    listAll: async () => ({ url: troupe.url, path: '/app/listAll', headers: auth, connections: 10 }),
    clientCredentials: async () => ({
      url: troupe.url,
      path: '/oauth/token',
      method: 'POST',
      headers: machineForm,
      body: 'grant_type=client_credentials',
      connections: 32,
    }),
    introspect: async () => ({
      url: troupe.url,
      path: '/oauth/introspect',
      method: 'POST',
      headers: machineForm,
      body: new URLSearchParams({ token: await machineToken() }).toString(),
      connections: 32,
    }),
    activity: async () => ({
      url: troupe.url,
      path: '/api/users/activity',
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      connections: 10,
      linesFile: bodies,
      linesAs: 'body',
    }),
  };
  const make = specs[which];
  if (!make) throw new Error(`unknown path "${which}": one of ${Object.keys(specs).join(', ')}`);
  const spec = await make();
  await load({ ...spec, amount: Math.max(1000, requests / 4) }); // warm-up: V8 optimises the path
  let best = Infinity;
  for (let round = 1; round <= rounds; round++) {
    const before = process.cpuUsage();
    const result = await load({ ...spec, amount: requests });
    const used = process.cpuUsage(before);
    const perRequest = (used.user + used.system) / result.total;
    console.log(`${which} round ${round}: ${perRequest.toFixed(0)} µs CPU per request, ${result.rps.toFixed(0)} req/s`);
    best = Math.min(best, perRequest);
  }
  console.log(`${which}: best ${best.toFixed(0)} µs CPU per request of the server process`);
  const out = process.env['PROFILE_OUT'];
  if (out) {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    const result = await load({ ...spec, amount: requests });
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(out, JSON.stringify(profile));
    console.log(`profile written to ${out}; self time per request by part (the profiler adds to every figure):`);
    for (const { part, microseconds, share } of selfTimeByPart(profile as CpuProfile, result.total)) {
      console.log(`${(share * 100).toFixed(1).padStart(5)} % ${microseconds.toFixed(1).padStart(6)} µs  ${part}`);
    }
  }
  const alloc = process.env['PROFILE_ALLOC'];
  if (alloc === '1' || alloc === 'survivors') {
    const survivors = alloc === 'survivors';
    const session = new Session();
    session.connect();
    // 512 bytes: fine enough for the small objects of a request, cheap enough to keep the run short.
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 512,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !survivors,
    });
    const result = await load({ ...spec, amount: requests });
    const { profile } = await session.post('HeapProfiler.stopSampling');
    const rows = allocationsByFunction(profile as SamplingHeapProfile, result.total);
    const total = rows.reduce((sum, r) => sum + r.bytes, 0);
    const what = survivors ? 'that outlived a scavenge' : 'allocated';
    console.log(`bytes ${what}: ${total.toFixed(0)} per request; by the function that allocated them:`);
    for (const { where, bytes } of rows.slice(0, 30)) console.log(`${bytes.toFixed(0).padStart(7)} B  ${where}`);
  }
} finally {
  await troupe.close();
}
