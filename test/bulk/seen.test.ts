import { describe, expect, it } from 'vitest';
import { SeenKeys } from '../../src/bulk/seen.js';

describe('SeenKeys', () => {
  it('gives back the line and offset of a key seen before, and nothing for new keys, over 200,000 keys', () => {
    const seen = new SeenKeys();
    let repeats = 0;
    for (let i = 0; i < 200_000; i++)
      if (seen.add(`usr_${i}\u0000role`, i + 2, i * 40) !== undefined) repeats++;
    expect(repeats).toBe(0);
    expect(seen.add('usr_0\u0000role', 999, 1)).toEqual({ line: 2, offset: 0 });
    expect(seen.add('usr_199999\u0000role', 999, 1)).toEqual({ line: 200_001, offset: 199_999 * 40 });
    expect(seen.add('usr_0\u0000other', 5, 5)).toBeUndefined();
  });
});
