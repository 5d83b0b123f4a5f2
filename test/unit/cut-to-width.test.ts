/**
 * cutToWidth's shortcut for printable ASCII (session 23: segmenting every cell into graphemes was
 * the largest part of laying out a 20,000-row table) answers as its grapheme loop does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutToWidth, textWidth } from '../../src/output/width.js';
import '../helpers/fast-check-seed.js';

/** The grapheme loop, as cutToWidth does it for any text. */
function byGraphemes(text: string, width: number, ellipsis: string): string {
  if (textWidth(text) <= width) return text;
  let kept = '';
  let used = textWidth(ellipsis);
  for (const { segment } of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text)) {
    if (used + textWidth(segment) > width) break;
    kept += segment;
    used += textWidth(segment);
  }
  return `${kept}${ellipsis}`;
}

describe('cutToWidth of printable ASCII', () => {
  it('is the grapheme loop, with either ellipsis and at any width', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[\x20-\x7e]{0,30}$/),
        fc.integer({ min: 0, max: 34 }),
        fc.constantFrom('…', '...', ''),
        (text, width, ellipsis) => {
          expect(cutToWidth(text, width, ellipsis)).toBe(byGraphemes(text, width, ellipsis));
        },
      ),
    );
    expect(cutToWidth('role.assignment_updated', 13, '…')).toBe('role.assignm…');
    expect(cutToWidth('role.assignment_updated', 13, '...')).toBe('role.assig...');
    expect(cutToWidth('role', 2, '...')).toBe('...');
  });
});
