import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const stylesSrc = path.join(root, 'src/styles');
const stylesDir = path.join(root, 'node_modules/@mantine/core/styles');

/** The @mantine/core per-file stylesheets a module imports, in its order. */
function imported(file: string): string[] {
  const source = fs.readFileSync(path.join(stylesSrc, file), 'utf8');
  return [...source.matchAll(/^import '@mantine\/core\/styles\/([\w-]+\.css)';$/gm)].map((m) => m[1] ?? '');
}

/** Where each per-file stylesheet sits in @mantine/core/styles.css: the order Mantine bundles them in. */
function bundleOrder(): Map<string, number> {
  const all = fs.readFileSync(path.join(root, 'node_modules/@mantine/core/styles.css'), 'utf8');
  const order = new Map<string, number>();
  for (const file of fs.readdirSync(stylesDir).filter((f) => f.endsWith('.css') && !f.endsWith('.layer.css'))) {
    order.set(file, all.indexOf(fs.readFileSync(path.join(stylesDir, file), 'utf8').trim().slice(0, 200)));
  }
  return order;
}

describe("Mantine's styles split (issue 21)", () => {
  const order = bundleOrder();
  const base = imported('mantine-base.ts');
  const rest = imported('mantine-rest.ts');

  it('the base and the rest hold every stylesheet of @mantine/core exactly once', () => {
    expect([...base, ...rest].sort()).toEqual([...order.keys()].sort());
    expect([...order.values()].every((at) => at >= 0)).toBe(true);
  });

  it("each list keeps the order of @mantine/core/styles.css, the global files first", () => {
    const byBundle = (list: readonly string[]) => [...list].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    expect(base).toEqual(byBundle(base));
    expect(rest).toEqual(byBundle(rest));
    expect(base.slice(0, 3)).toEqual(['baseline.css', 'default-css-variables.css', 'global.css']);
  });

  it("@mantine/notifications' styles come after every @mantine/core file of the base", () => {
    const source = fs.readFileSync(path.join(stylesSrc, 'mantine-base.ts'), 'utf8');
    expect(source.indexOf("import '@mantine/notifications/styles.css';")).toBeGreaterThan(source.lastIndexOf("import '@mantine/core/styles/"));
  });
});
