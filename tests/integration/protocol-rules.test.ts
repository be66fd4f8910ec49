import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { definedRules, RULES_TABLE, renderTable, ruleTable, rulesNamed, testTitles } from '../../tools/protocol-rules.ts';

/**
 * Rules of PROTOCOL.md that no test title names yet: none. It stays for a rule that must be written down
 * before its test exists; it may only shrink again (the test below fails either way).
 */
const NOT_YET_NAMED = new Set<string>([]);

describe('the rule-to-test table of PROTOCOL.md', () => {
  it('reads rule ids, ranges and pairs from the document and from test titles', () => {
    expect(definedRules('- **ENV-1** a\n- **XFER-4 Console socket drops.** b\n- **BRIDGE-1..3** c\n**CMD-ID-1/2** d')).toEqual([
      'BRIDGE-1', 'BRIDGE-2', 'BRIDGE-3', 'CMD-ID-1', 'CMD-ID-2', 'ENV-1', 'XFER-4',
    ]);
    // Built from parts, so that this file's own source names no rule.
    const source = ['it', "('ABC-1 absent means absent', () => {}); ", 'describe.skip', '("ABC-2 x", f); ', 'test', '(`ABC-3..4 y`, g)'].join('');
    expect(testTitles(source)).toEqual(['ABC-1 absent means absent', 'ABC-2 x', 'ABC-3..4 y']);
    expect(rulesNamed('LIFE-1..2 and SHA-256 of CRC-32')).toEqual(['LIFE-1', 'LIFE-2', 'SHA-256', 'CRC-32']);
  });

  it('names every rule in at least one test title, but for the listed ones that may only shrink', () => {
    const rows = ruleTable();
    const unnamed = rows.filter((r) => r.tests.length === 0).map((r) => r.rule);
    expect(unnamed.filter((r) => !NOT_YET_NAMED.has(r))).toEqual([]);
    expect([...NOT_YET_NAMED].filter((r) => !unnamed.includes(r))).toEqual([]);
  });

  it('docs/PROTOCOL-RULES.md is the current table (node tools/protocol-rules.ts --write)', () => {
    expect(fs.readFileSync(RULES_TABLE, 'utf8')).toBe(renderTable(ruleTable()));
  });
});
