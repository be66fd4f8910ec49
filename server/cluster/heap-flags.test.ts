import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_HEAP_FLAGS, withServerHeapFlags } from './heap-flags.ts';

describe('server heap flags', () => {
  it('adds the young-generation cap to a worker that was started without one', () => {
    expect(withServerHeapFlags(['--expose-gc'])).toEqual(['--expose-gc', ...SERVER_HEAP_FLAGS]);
  });

  it("keeps an operator's own size, given on the command line or in NODE_OPTIONS", () => {
    expect(withServerHeapFlags(['--max-semi-space-size=64'])).toEqual(['--max-semi-space-size=64']);
    expect(withServerHeapFlags([], '--max-old-space-size=4096 --max-semi-space-size=32')).toEqual([]);
  });

  it('is on the command line of the npm scripts that start a server', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const script of ['start', 'serve']) {
      for (const flag of SERVER_HEAP_FLAGS) expect(pkg.scripts[script]).toContain(`node ${flag} server/main.ts`);
    }
  });
});
