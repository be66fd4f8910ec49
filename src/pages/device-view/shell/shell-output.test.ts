import { describe, expect, it } from 'vitest';
import { OutputCursor } from './shell-output.ts';

describe('terminal output cursor', () => {
  it('shows each character once when the backlog and the flow overlap after a re-attach', () => {
    const cursor = new OutputCursor();
    expect(cursor.take({ output: 'abc', offset: 0 })).toBe('abc');
    expect(cursor.take({ output: 'def', offset: 3 })).toBe('def');
    // The socket dropped after 'def'; the device printed 'ghi' meanwhile and answers the re-open with it.
    expect(cursor.attach({ offset: 9, backlog: 'ghi' })).toBe('ghi');
    // A flow message the device sent before its reply overlaps the backlog: only its new part shows.
    expect(cursor.take({ output: 'hijk', offset: 7 })).toBe('jk');
    expect(cursor.take({ output: 'ij', offset: 8 })).toBe('');
    expect(cursor.received).toBe(11);
  });

  it('starts over for a new session, and passes line-mode output (no offset) through', () => {
    const cursor = new OutputCursor();
    cursor.take({ output: 'x'.repeat(50), offset: 0 });
    expect(cursor.attach({ offset: 5, backlog: '$ ls ' })).toBe('$ ls ');
    expect(cursor.received).toBe(5);
    expect(cursor.take({ output: 'plain\n' })).toBe('plain\n');
    expect(cursor.received).toBe(5);
  });
});
