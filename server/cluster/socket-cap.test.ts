import { describe, expect, it } from 'vitest';
import { FD_RESERVE, openFileLimitOf, workerSocketCap } from './socket-cap.ts';

const limits = (soft: string, hard: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                ${hard}                files\n`;

describe("a worker's socket cap", () => {
  it('leaves room below the soft open-file limit', () => {
    expect(openFileLimitOf(limits('20000', '20000'))).toBe(20_000);
    expect(workerSocketCap(limits('20000', '20000'))).toBe(20_000 - FD_RESERVE);
  });

  it('has no cap when the limit is unlimited or unknown', () => {
    expect(workerSocketCap(limits('unlimited', 'unlimited'))).toBeUndefined();
    expect(workerSocketCap('')).toBeUndefined();
  });
});
