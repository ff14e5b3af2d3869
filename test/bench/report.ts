/** What the bench measured, and the Markdown it writes. */
import { availableParallelism, cpus, totalmem } from 'node:os';

export interface Measurement {
  readonly scenario: string;
  readonly rps?: number;
  /** Milliseconds. */
  readonly p50?: number;
  readonly p99?: number;
  /** MiB, of the process that served the scenario. */
  readonly rss?: number;
  /** Requests that were not 2xx, errors and timeouts included. */
  readonly failed?: number;
  readonly note?: string;
}

/** A claim is a ratio against a baseline measured in the same run. */
export interface Claim {
  readonly claim: string;
  readonly ratio: number;
  /** `>=` or `<=` the bound; `info` makes no claim. */
  readonly op: '>=' | '<=' | 'info';
  readonly bound: number;
  readonly meaning: string;
}

export const met = (c: Claim): boolean | undefined =>
  c.op === 'info' ? undefined : c.op === '>=' ? c.ratio >= c.bound : c.ratio <= c.bound;

export interface Report {
  readonly measurements: Measurement[];
  readonly claims: Claim[];
  readonly notes: string[];
}

export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${availableParallelism()} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`;
}

const num = (v: number | undefined, digits = 0): string => (v === undefined ? '–' : v.toFixed(digits));

function measurementTable(rows: readonly Measurement[]): string[] {
  return [
    '| scenario | req/s | p50 ms | p99 ms | RSS MiB | failed | note |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (m) =>
        `| ${m.scenario} | ${num(m.rps)} | ${num(m.p50, 1)} | ${num(m.p99, 1)} | ${num(m.rss)} | ${num(m.failed)} | ${m.note ?? ''} |`,
    ),
  ];
}

function claimTable(rows: readonly Claim[]): string[] {
  const verdict = (c: Claim): string => {
    const ok = met(c);
    return ok === undefined ? 'info' : ok ? '**met**' : '**MISSED**';
  };
  return [
    '| claim | ratio | target | result | meaning |',
    '|---|---:|---:|---|---|',
    ...rows.map(
      (c) =>
        `| ${c.claim} | ${c.ratio.toFixed(2)} | ${c.op === 'info' ? '–' : `${c.op} ${c.bound}`} | ${verdict(c)} | ${c.meaning} |`,
    ),
  ];
}

export function markdown(report: Report, startedAt: Date, seconds: number): string {
  const missed = report.claims.filter((c) => met(c) === false).length;
  return [
    '# troupe benchmark results',
    '',
    `Run ${startedAt.toISOString()} on ${machine()}; the bench took ${Math.round(seconds)} s.`,
    '',
    '## Claims (ratios against baselines of the same run)',
    '',
    ...claimTable(report.claims),
    '',
    missed === 0 ? 'Every target was met.' : `${missed} target(s) missed.`,
    '',
    '## Measurements',
    '',
    ...measurementTable(report.measurements),
    '',
    ...report.notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
}
