/**
 * A theme of the sign-in pages: the templates, the partials they share (the head, the brand, the
 * support link), the stylesheet and the messages per language. The default theme is
 * `http/oauth/theme/`; a deployment's folder (`security.sign-in.theme`) replaces any file of it,
 * and its messages merge over the default's per language. Read once, at start-up: a template or
 * partial that does not parse, or a messages file that is not a JSON object of strings, stops the
 * start with the file's name.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Mustache from 'mustache';
import { ConfigError } from '../../../src/config.ts';
import { DEFAULT_LANGUAGE } from './language.ts';

export const TEMPLATES = [
  'sign-in.html',
  'consent.html',
  'error.html',
  'logout.html',
  'signed-out.html',
  'account.html',
  'index.html',
] as const;
export type TemplateName = (typeof TEMPLATES)[number];

/**
 * What the templates include as `{{> top}}` (`{{> head}}` and `{{> brand}}` in the page's card),
 * `{{> end}}` (`{{> support}}` and the card's close), `{{> credentials}}` and `{{> decision}}`; a
 * template replaced whole may leave them out.
 */
export const PARTIALS = [
  'top.html',
  'head.html',
  'brand.html',
  'end.html',
  'support.html',
  'credentials.html',
  'decision.html',
] as const;

/** Message key → text, `{name}` standing for a value of the page. */
export type Messages = Readonly<Record<string, string>>;

export interface Theme {
  readonly templates: Readonly<Record<TemplateName, string>>;
  /** By the name a template includes it with: `head` for `head.html`. */
  readonly partials: Readonly<Record<string, string>>;
  readonly stylesheet: string;
  /** By language (a messages file's name): English, then the language, the default's then the theme's. */
  readonly messages: ReadonlyMap<string, Messages>;
}

export const DEFAULT_THEME = fileURLToPath(new URL('../theme/', import.meta.url));

/** A language tag as a file name: `en`, `pt-BR`. */
const LANGUAGE_FILE = /^([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\.json$/i;

const refuse = (file: string, why: string): ConfigError =>
  new ConfigError(`Invalid configuration: security.sign-in.theme: ${file} ${why}`);

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw refuse(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The file of the theme folder if it has one, else the default's. */
const pick = (folder: string | undefined, name: string): string =>
  folder !== undefined && existsSync(join(folder, name)) ? join(folder, name) : join(DEFAULT_THEME, name);

function template(file: string): string {
  const text = readText(file);
  try {
    Mustache.parse(text);
  } catch (error) {
    throw refuse(file, `is not a valid mustache template (${(error as Error).message.split('\n')[0]})`);
  }
  return text;
}

function messagesFile(file: string): Messages {
  let value: unknown;
  try {
    value = JSON.parse(readText(file));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw refuse(file, `is not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw refuse(file, 'must be a JSON object of strings');
  const bad = Object.entries(value).find(([, text]) => typeof text !== 'string');
  if (bad !== undefined) throw refuse(file, `must be a JSON object of strings ("${bad[0].slice(0, 64)}" is not)`);
  return value as Messages;
}

/** The messages files of a folder, by language; none when it has no `messages/`. */
function messagesIn(folder: string): Map<string, Messages> {
  const dir = join(folder, 'messages');
  const found = new Map<string, Messages>();
  if (!existsSync(dir)) return found;
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.json')) continue;
    const language = LANGUAGE_FILE.exec(name)?.[1];
    if (language === undefined) throw refuse(join(dir, name), 'is not named after a language (en.json, pt-BR.json)');
    found.set(language, messagesFile(join(dir, name)));
  }
  return found;
}

function mergedMessages(folder: string | undefined): Map<string, Messages> {
  const base = messagesIn(DEFAULT_THEME);
  const own = folder === undefined ? new Map<string, Messages>() : messagesIn(folder);
  const english = { ...base.get(DEFAULT_LANGUAGE), ...own.get(DEFAULT_LANGUAGE) };
  const merged = new Map<string, Messages>();
  for (const language of new Set([DEFAULT_LANGUAGE, ...base.keys(), ...own.keys()]))
    merged.set(language, { ...english, ...base.get(language), ...own.get(language) });
  return merged;
}

/** Reads the default theme with `folder`'s files over it; throws {@link ConfigError} naming a bad file. */
export function loadTheme(folder?: string): Theme {
  if (folder !== undefined && !(existsSync(folder) && statSync(folder).isDirectory()))
    throw refuse(folder, 'is not a folder');
  const templates = Object.fromEntries(TEMPLATES.map((name) => [name, template(pick(folder, name))]));
  const partials = Object.fromEntries(
    PARTIALS.map((name) => [name.replace(/\.html$/, ''), template(pick(folder, name))]),
  );
  return {
    templates: templates as Record<TemplateName, string>,
    partials,
    stylesheet: readText(pick(folder, 'style.css')),
    messages: mergedMessages(folder),
  };
}
