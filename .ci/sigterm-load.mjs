// `node .ci/sigterm-load.mjs URL READY_FILE`: eight clients GET URL/health over kept-alive connections,
// one request after another (after a 503, as long as its Retry-After says, as a polite client does),
// until the port refuses them; READY_FILE is written once 200 requests have been answered (stop the
// server then). Prints the outcomes as JSON: `ok` (200), `unavailable` (503,
// while the server drains), `refused` (a new connection refused: it has stopped), `reset` (a connection
// reset or closed under a request: what a drain must never do) and `other`.
import http from 'node:http';
import { writeFileSync } from 'node:fs';

const [url, ready] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
const counts = { ok: 0, unavailable: 0, refused: 0, reset: 0, other: 0 };
const deadline = Date.now() + 40_000;

const once = () =>
  new Promise((resolve) => {
    const request = http.get(`${url}/health`, { agent }, (response) => {
      response.resume();
      const retryAfter = Number(response.headers['retry-after'] ?? 0) * 1000;
      response.on('end', () => {
        const outcome = { 200: 'ok', 503: 'unavailable' }[response.statusCode] ?? 'other';
        if (outcome === 'unavailable') setTimeout(resolve, retryAfter, outcome);
        else resolve(outcome);
      });
    });
    request.setTimeout(5000, () => request.destroy(new Error('no answer within 5 s')));
    request.on('error', (error) => {
      if (error.code === 'ECONNREFUSED') resolve('refused');
      else if (['ECONNRESET', 'EPIPE'].includes(error.code) || error.message === 'socket hang up') resolve('reset');
      else resolve('other');
    });
  });

async function client() {
  for (;;) {
    const outcome = await once();
    counts[outcome]++;
    if (counts.ok === 200 && outcome === 'ok') writeFileSync(ready, '');
    if (outcome === 'refused' || outcome === 'other' || Date.now() > deadline) return;
  }
}

await Promise.all(Array.from({ length: 8 }, client));
console.log(JSON.stringify(counts));
