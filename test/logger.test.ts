/** The server's log: pretty lines for a person at a terminal, JSON lines otherwise and in production. */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger, logFormat } from '../src/logger.ts';
import { tempDir } from './helpers/server.ts';
import { onPath, skipSuite } from './helpers/skip.ts';
import { capture } from './helpers/capture.ts';

const t = suite('log format');

// eslint-disable-next-line no-control-regex -- strips ANSI colour codes
const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

t('pretty only at a terminal and outside production', () => {
  assert.is(logFormat(false, { isTTY: true }), 'pretty');
  assert.is(logFormat(false, { isTTY: false }), 'json');
  assert.is(logFormat(false, {}), 'json', 'a file or a pipe has no isTTY');
  assert.is(logFormat(true, { isTTY: true }), 'json', 'production logs JSON even at a terminal');
  assert.is(logFormat(true, {}), 'json');
});

t('a pretty line is one line with time, level, pid, message and fields; secrets are redacted as in JSON', () => {
  const out = capture();
  const logger = createLogger('info', out.stream, 'pretty');
  logger.info(
    {
      route: '/oauth/token',
      password: 'hunter2',
      client_secret: 'troupe-secret',
      headers: { authorization: 'Bearer eyJabc' },
      body: { refresh_token: 'rt-123', token: 'tk-456' },
    },
    'request',
  );
  const lines = plain(out.text()).split('\n').filter(Boolean);
  assert.is(lines.length, 1, out.text());
  assert.match(lines[0] ?? '', new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\] INFO \\(${process.pid}\\): request \\{`));
  assert.match(lines[0] ?? '', /"route":"\/oauth\/token"/);
  assert.not.match(out.text(), /hunter2|troupe-secret|Bearer|rt-123|tk-456/);
  assert.is(lines[0]?.match(/\[redacted\]/g)?.length, 5);
});

t('the JSON format stays the default', () => {
  const out = capture();
  createLogger('info', out.stream).info({ password: 'hunter2' }, 'ready');
  const line = JSON.parse(out.text()) as Record<string, unknown>;
  assert.is(line['msg'], 'ready');
  assert.is(line['password'], '[redacted]');
});

t.run();

const script = onPath('script'); // util-linux: runs a command on a pseudo-terminal
if (script === undefined) {
  skipSuite('npm start at a terminal', "no script(1) on PATH (util-linux's) to give it a terminal");
} else {
  const pty = suite('npm start at a terminal');

  /** `npm start`'s entry point on a pseudo-terminal until it is listening, then Ctrl-C: what it printed. */
  async function startAtTerminal(env: Record<string, string>): Promise<string> {
    const dataDir = tempDir('troupe-tty-');
    // No initial accounts: production refuses the published development ones.
    writeFileSync(join(dataDir, 'initial-data.json'), '{"roles":[],"users":[]}');
    try {
      const child = spawn(script as string, ['-qec', `${process.execPath} src/main.ts --server.port=0`, '/dev/null'], {
        stdio: ['pipe', 'pipe', 'inherit'],
        env: {
          ...process.env,
          CONFIG_FILE: '/dev/null',
          DATA_DIR: dataDir,
          APP_INITIAL_DATA: join(dataDir, 'initial-data.json'),
          ...env,
        },
      });
      let out = '';
      let interrupted = false;
      child.stdin.on('error', () => {}); // EPIPE once the terminal is gone: nothing more to type
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (interrupted || !/troupe listening/.test(out)) return;
        interrupted = true;
        child.stdin.write('\u0003'); // Ctrl-C: the terminal sends SIGINT
      });
      const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await new Promise((resolve) => child.on('close', resolve));
      clearTimeout(guard);
      return plain(out).replace(/\r/g, '');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  pty('prints pretty lines', async () => {
    const out = await startAtTerminal({ NODE_ENV: 'development' });
    assert.match(out, /^\[\d\d:\d\d:\d\d\] INFO \(\d+\): troupe listening \{"url":"http:\/\/127\.0\.0\.1:\d+"/m, out);
    assert.not.match(out, /\{"level":/, out);
  });

  pty('in production prints JSON lines all the same', async () => {
    const out = await startAtTerminal({
      NODE_ENV: 'production',
      SECURITY_JWT_CLIENT_SECRET: bcrypt.hashSync('a-production-secret', 4),
    });
    const listening = out.split('\n').find((line) => line.includes('troupe listening')) ?? '';
    assert.match(listening, /^\{"level":30,/, out);
    assert.is((JSON.parse(listening) as { msg?: string }).msg, 'troupe listening');
    assert.not.match(out, /^\[\d\d:\d\d:\d\d\] INFO/m, out);
  });

  pty.run();
}
