import { describe, expect, it } from 'vitest';
import { toCsv } from './timeline-csv.ts';

describe('timeline CSV', () => {
  it('quotes commas, quotes and line breaks, and defuses formulas', () => {
    expect(toCsv(['a', 'b'], [['x,y', 'say "hi"'], ['=1+1', 'line\nbreak'], [-5, 'ok']])).toBe(
      '\uFEFFa,b\r\n"x,y","say ""hi"""\r\n\'=1+1,"line\nbreak"\r\n\'-5,ok\r\n',
    );
  });
});
