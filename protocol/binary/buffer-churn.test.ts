import { describe, expect, it } from 'vitest';
import { BufferChurn, CHURN_COLLECT_EVERY_BYTES } from './buffer-churn.ts';

describe('BufferChurn', () => {
  it('asks for one collection per interval of bytes, however the bytes are split', () => {
    let collections = 0;
    const churn = new BufferChurn(() => collections++, 100);
    for (let i = 0; i < 10; i++) churn.add(30);
    expect(collections).toBe(2); // at 120 and 240 bytes; 60 counted since
    churn.add(40);
    expect(collections).toBe(3);
  });

  it('defaults to CHURN_COLLECT_EVERY_BYTES', () => {
    let collections = 0;
    const churn = new BufferChurn(() => collections++);
    churn.add(CHURN_COLLECT_EVERY_BYTES - 1);
    expect(collections).toBe(0);
    churn.add(1);
    expect(collections).toBe(1);
  });

  it('does nothing on a host without a way to collect (a browser)', () => {
    const churn = new BufferChurn(undefined, 1);
    expect(() => churn.add(10)).not.toThrow();
  });
});
