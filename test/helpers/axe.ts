/**
 * axe-core's WCAG 2.0, 2.1 and 2.2 level A and AA rules, run on a page open in the browser.
 *
 * The pages under test forbid every script (`default-src 'none'`), so axe is not added with a
 * `<script>`: its source is evaluated through `page.evaluate`, which the browser runs over the
 * DevTools protocol, outside the page's Content-Security-Policy. The context keeps the policy on
 * (no `bypassCSP`), so that the page is checked as a person gets it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import * as assert from 'uvu/assert';

/** The rule tags of WCAG 2.0, 2.1 and 2.2, levels A and AA. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] as const;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly helpUrl: string;
  /** The CSS selectors of the elements that break the rule. */
  readonly targets: readonly string[];
}

export interface AxeSummary {
  readonly violations: readonly AxeViolation[];
  /** The ids of the rules that passed: empty would mean axe checked nothing. */
  readonly passes: readonly string[];
  /** The ids of the rules axe could not decide (for review; not a failure). */
  readonly incomplete: readonly string[];
}

/** Runs axe on `page` (its current document) with {@link WCAG_TAGS}. */
export async function runAxe(page: Page): Promise<AxeSummary> {
  if (!(await page.evaluate<boolean>("typeof globalThis.axe === 'object'"))) await page.evaluate(AXE_SOURCE);
  const options = JSON.stringify({ runOnly: { type: 'tag', values: WCAG_TAGS }, resultTypes: ['violations'] });
  return page.evaluate<AxeSummary>(`axe.run(document, ${options}).then((r) => ({
    violations: r.violations.map((v) => ({
      id: v.id, impact: v.impact ?? null, help: v.help, helpUrl: v.helpUrl,
      targets: v.nodes.map((n) => n.target.join(' ')),
    })),
    passes: r.passes.map((p) => p.id),
    incomplete: r.incomplete.map((i) => i.id),
  }))`);
}

/** One line per violation: id, impact, the elements and what the rule asks. */
export function describeViolations(violations: readonly AxeViolation[]): string {
  return violations
    .map((v) => `  ${v.id} (${v.impact ?? 'no impact'}) at ${v.targets.join(', ')}: ${v.help} <${v.helpUrl}>`)
    .join('\n');
}

/** Fails unless axe ran on `page` and found no violation; `what` names the page in the message. */
export async function assertAccessible(page: Page, what: string): Promise<AxeSummary> {
  const summary = await runAxe(page);
  assert.ok(summary.passes.length > 0, `${what}: axe ran no rule (was it loaded?)`);
  if (summary.violations.length > 0) console.log(`${what}: axe found\n${describeViolations(summary.violations)}`);
  assert.is(summary.violations.length, 0, `${what}: ${summary.violations.map((v) => v.id).join(', ')}`);
  return summary;
}
