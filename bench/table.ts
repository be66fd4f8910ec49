/** One printed benchmark line: our figure, the raw baseline measured in the same run, and their ratio. */
export interface BenchRow {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: number;
  readonly target?: string;
}

const fmt = (n: number) => (n >= 100 || Number.isInteger(n) ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));

/** Prints rows as a Markdown table (pasteable into an issue note). */
export function printTable(title: string, rows: readonly BenchRow[]): void {
  const lines = [
    `### ${title}`,
    '',
    '| measure | ours | baseline | ratio | target |',
    '|---|---:|---:|---:|---|',
    ...rows.map((r) =>
      [r.name, `${fmt(r.value)} ${r.unit}`, r.baseline === undefined ? '' : `${fmt(r.baseline)} ${r.unit}`, r.baseline ? `${((r.value / r.baseline) * 100).toFixed(0)}%` : '', r.target ?? '']
        .join(' | ')
        .replace(/^/, '| ')
        .replace(/$/, ' |'),
    ),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Runs `fn` for about `ms` milliseconds after a warm-up and returns operations per second. */
export function opsPerSecond(fn: () => number, ms = 1_000): number {
  fn();
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    ops += fn();
    elapsed = performance.now() - start;
  }
  return (ops / elapsed) * 1_000;
}
