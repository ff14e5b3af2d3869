// What scripts/test.mjs writes of uvu's output: all of it as it comes, but for uvu's own "Skipped:"
// count, dropped, and the notes of tests (test/helpers/skip.ts), each moved to a line of its own.

// eslint-disable-next-line no-control-regex -- strips ANSI colour codes
const plainText = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');
const isUvuSkipped = (text) => /^\s*Skipped:\s+\d+\s*$/.test(plainText(text));
const mayBeUvuSkipped = (text) => {
  const start = plainText(text).trimStart();
  return 'Skipped:'.startsWith(start) || /^Skipped:\s*\d*$/.test(start);
};

/** How a note begins (test/helpers/skip.ts). */
const NOTE = '  note: ';

/** How many characters at the end of `text` may begin a note. */
function partialNote(text) {
  for (let n = Math.min(NOTE.length - 1, text.length); n > 0; n--) if (NOTE.startsWith(text.slice(-n))) return n;
  return 0;
}

/**
 * A filter of uvu's output into `write`: `receive` each chunk as it comes, then `end`.
 * @param {(text: string) => void} write
 */
export function uvuOutput(write) {
  // uvu's own "Skipped:" count leaves out the suites skipped with a reason (it is 0 above a summary
  // that says "6 skipped"), so that line is dropped and the summary counts both. All else is written
  // as it comes; only a line that may still turn out to be that one waits for its end.
  let line = ''; // the line being received
  let shown = 0; // how much of it is already written
  function pass(chunk) {
    const pieces = chunk.split('\n');
    const last = pieces.pop() ?? '';
    for (const piece of pieces) {
      const full = line + piece;
      if (shown > 0 || !isUvuSkipped(full)) write(`${full.slice(shown)}\n`);
      line = '';
      shown = 0;
    }
    line += last;
    if (shown > 0 || !mayBeUvuSkipped(line)) {
      write(line.slice(shown));
      shown = line.length;
    }
  }

  // A note may come in the middle of a row of dots: it is held, and printed on a line of its own
  // once that row ends.
  let held = ''; // received, not yet passed on: the start of a note, or what may begin one
  const notes = []; // notes waiting for the end of their row
  let atLineStart = true;
  function flushNotes() {
    for (const text of notes.splice(0)) write(`  ${text}\n`);
  }
  function passOn(text) {
    const end = text.indexOf('\n');
    if (notes.length > 0 && end >= 0) {
      pass(text.slice(0, end + 1));
      flushNotes();
      atLineStart = true;
      text = text.slice(end + 1);
    }
    if (text === '') return;
    pass(text);
    atLineStart = text.endsWith('\n');
  }
  function receive(chunk) {
    held += chunk;
    for (let at = held.indexOf(NOTE); at >= 0; at = held.indexOf(NOTE)) {
      const end = held.indexOf('\n', at);
      passOn(held.slice(0, at));
      held = held.slice(at);
      if (end < 0) return; // the note's end is still to come
      notes.push(held.slice(NOTE.length, end - at));
      held = held.slice(end - at + 1);
      if (atLineStart) flushNotes();
    }
    const keep = partialNote(held);
    passOn(held.slice(0, held.length - keep));
    held = held.slice(held.length - keep);
  }

  return {
    receive,
    end() {
      passOn(held);
      if (shown === 0 && line !== '' && !isUvuSkipped(line)) write(line);
      if (notes.length > 0) write('\n');
      flushNotes();
    },
  };
}
