import { describe, expect, it } from 'vitest';
import { changedFields } from '../../src/api/changed-fields.js';

describe('changedFields', () => {
  it.each([
    [['a', 'b'], ['b', 'a'], []],
    [['a', 'b'], ['a', 'a'], ['list']],
    [['a', 'a'], ['a', 'b'], ['list']],
    [['a'], ['a', 'a'], ['list']],
    [[], [], []],
  ])(
    'a list %j set to %j changes %j (the same items as often, in any order, is no change)',
    (now, wanted, changed) => {
      expect(changedFields({ list: now }, { list: wanted })).toEqual(changed);
    },
  );

  it('a field set to what it is, or left undefined, is no change', () => {
    expect(changedFields({ a: 1, b: 'x', c: true }, { a: 1, b: 'y', c: undefined })).toEqual(['b']);
  });
});
