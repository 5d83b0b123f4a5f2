/** Cells cut to their column (src/output/table.ts): never in the middle of a character. */
import { describe, expect, it } from 'vitest';
import { renderTable } from '../../src/output/table.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('renderTable cuts', () => {
  it.each(Array.from({ length: 30 }, (_, n) => n + 6))(
    'a cell of CJK and emoji at %i columns: whole characters, then "…"',
    (width) => {
      const text = renderTable(undefined, [['对账审批员😀'.repeat(10), 'x']], [width, 1]);
      expect(text).not.toMatch(LONE_SURROGATE);
      expect(text).not.toContain('\uFFFD');
      const cell = text.split('  ')[0]!;
      expect(cell.endsWith('…')).toBe(true);
      expect('对账审批员😀'.repeat(10).startsWith(cell.slice(0, -1).trimEnd())).toBe(true);
    },
  );

  it('an emoji made of several code points (a family, a flag) is kept whole or left out', () => {
    const family = '👨‍👩‍👧';
    const flag = '🇪🇺';
    for (const width of [3, 4, 5, 6, 7]) {
      const text = renderTable(undefined, [[`ab${family}${flag}${family}cd`]], [width]);
      expect(text, `at ${width}`).not.toMatch(LONE_SURROGATE);
      const kept = text.trimEnd().replace(/…$/, '');
      expect(`ab${family}${flag}${family}cd`.startsWith(kept), `at ${width}: ${kept}`).toBe(true);
      expect([...new Intl.Segmenter().segment(kept)].at(-1)?.segment).not.toBe('\u200d');
      expect(kept.endsWith('\u200d')).toBe(false);
    }
  });

  it('a cell as wide as its column is whole, though longer in UTF-16 units (a flag, a family)', () => {
    expect(
      renderTable(
        undefined,
        [
          ['🇪🇺', 'x'],
          ['👨‍👩‍👧', 'y'],
        ],
        [2, 1],
      ),
    ).toBe('🇪🇺  x\n👨‍👩‍👧  y\n');
    expect(renderTable(undefined, [['ab🇪🇺', 'x']], [4, 1])).toBe('ab🇪🇺  x\n');
  });
});
