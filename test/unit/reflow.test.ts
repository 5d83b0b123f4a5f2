import { describe, expect, it } from 'vitest';
import { reflow } from '../../src/cli.js';

describe('reflow (help descriptions)', () => {
  it.each([
    ['joins the lines of a paragraph', 'one two\nthree', 'one two three'],
    ['keeps paragraphs apart', 'a\nb\n\nc\nd', 'a b\n\nc d'],
    ['keeps list items and indented lines', 'Kinds:\n- one\n- two\n  more', 'Kinds:\n- one\n- two\n  more'],
    ['joins a line that starts with a flag', 'see\n--dry-run for a plan', 'see --dry-run for a plan'],
    ['leaves one line alone', 'single', 'single'],
  ])('%s', (_name, input, expected) => {
    expect(reflow(input)).toBe(expected);
  });
});
