/** The project's Markdown documents, read for the tests that keep them true. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Doc {
  readonly path: string;
  readonly text: string;
}

/** README.md, then every Markdown file under docs/ in name order. */
export function documents(): Doc[] {
  const docs = readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join('docs', f));
  return ['README.md', ...docs].map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

export interface Block {
  readonly info: string;
  readonly body: string;
}

/** The fenced code blocks of a Markdown text, with their info strings (`bash session`, `sh`, …). */
export function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let open: { info: string; lines: string[] } | undefined;
  for (const line of text.split('\n')) {
    if (open) {
      if (line.startsWith('```')) {
        blocks.push({ info: open.info, body: open.lines.join('\n') + '\n' });
        open = undefined;
      } else open.lines.push(line);
    } else if (line.startsWith('```')) open = { info: line.slice(3).trim(), lines: [] };
  }
  return blocks;
}

/** The text outside fenced blocks (headings and links live there). */
export function prose(text: string): string {
  let inside = false;
  return text
    .split('\n')
    .filter((line) => {
      if (line.startsWith('```')) {
        inside = !inside;
        return false;
      }
      return !inside;
    })
    .join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a document's headings. */
export function anchors(text: string): Set<string> {
  return new Set(
    prose(text)
      .split('\n')
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => anchorOf(l.replace(/^#+ /, ''))),
  );
}
