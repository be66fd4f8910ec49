import { describe, expect, it } from 'vitest';
import { youngCollection } from './young-collection.ts';

describe('youngCollection', () => {
  it('asks V8 for a young collection, with or without --expose-gc, and leaves the global as it was', () => {
    const hadGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
    const collect = youngCollection();
    expect(() => collect()).not.toThrow();
    expect(youngCollection()).toBe(collect);
    expect(typeof (globalThis as { gc?: unknown }).gc === 'function').toBe(hadGc);
  });
});
