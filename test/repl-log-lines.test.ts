/** The REPL's log lines: one short human line each, above the prompt, which is drawn again. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../src/logger.ts';
import { replLogLines } from '../src/repl/log-lines.ts';
import { capture } from './helpers/capture.ts';

const t = suite('REPL log lines');

t('an error is one line with its cause, no stack, no JSON; the prompt is drawn again after it', () => {
  const logs = capture();
  const prompt = capture();
  const lines = replLogLines(logs.stream, prompt.stream, true);
  let redrawn = 0;
  lines.redraw = () => redrawn++;
  const logger = createLogger('info', lines.stream);
  const error = new Error('database is locked');
  logger.error({ err: error, path: 'troupe://users', password: 'hunter2' }, 'actor crashed');
  logger.info({ url: 'http://127.0.0.1:1' }, 'ready');
  const printed = logs.text().split('\n').filter(Boolean);
  assert.is(printed.length, 2);
  assert.match(printed[0] ?? '', /^\[\d\d:\d\d:\d\d\] ERROR: actor crashed: database is locked$/);
  assert.match(printed[1] ?? '', /^\[\d\d:\d\d:\d\d\] INFO: ready$/);
  assert.not.match(logs.text(), /hunter2|at |\{/);
  assert.is(redrawn, 2, 'the prompt is drawn again after each line');
  const clear = '\u001b[1G\u001b[2K'; // to column 1, erase the line
  assert.ok(prompt.text().startsWith(clear), "the prompt's line is cleared before a log line");
});

t('without a terminal nothing is redrawn and the prompt stream is untouched', () => {
  const logs = capture();
  const prompt = capture();
  const lines = replLogLines(logs.stream, prompt.stream, false);
  let redrawn = 0;
  lines.redraw = () => redrawn++;
  createLogger('info', lines.stream).warn('generated a development signing key');
  assert.match(logs.text(), /^\[\d\d:\d\d:\d\d\] WARN: generated a development signing key\n$/);
  assert.is(redrawn, 0);
  assert.is(prompt.text(), '');
});

t.run();
