/**
 * ShownCuts (src/output/chunks.ts) keeps what a streamed table has shown in a column so that a
 * chunk costs one pass over its own values (session 23: every shown id went through uniqueKeep
 * again at every chunk, O(n²) over a 20,000-row `audit ls --all`). It must answer what the old
 * code did: uniqueKeep (ids) or uniqueWidth (names) over every value shown so far, from the size
 * the column has.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ShownCuts } from '../../src/output/chunks.js';
import { uniqueKeep, uniqueWidth } from '../../src/output/layout.js';
import '../helpers/fast-check-seed.js';

/** Ids of one type whose characters after `aud_` come from a small alphabet: they share prefixes. */
const id = fc.oneof(
  fc.stringMatching(/^aud_[ab]{2,14}$/),
  fc.constantFrom('', '-'),
  fc.stringMatching(/^[ab]{1,12}…?$/),
);
const name = fc.stringMatching(/^[ab.é]{1,16}$/);

describe('ShownCuts answers as the whole column would', () => {
  it('ids: the keep of every chunk is uniqueKeep over all ids shown, from the keep before', () => {
    fc.assert(
      fc.property(fc.array(fc.array(id, { maxLength: 12 }), { minLength: 1, maxLength: 6 }), (chunks) => {
        const shown = ShownCuts.ids();
        const all: string[] = [];
        let keep = uniqueKeep(chunks[0]!, 6);
        all.push(...chunks[0]!);
        shown.sizeFor(chunks[0]!, keep);
        for (const chunk of chunks.slice(1)) {
          all.push(...chunk);
          const expected = uniqueKeep(all, keep);
          expect(shown.sizeFor(chunk, keep)).toBe(expected);
          keep = expected;
        }
      }),
    );
  });

  it('names: the width of every chunk is uniqueWidth over all names shown, from the width before', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(name, { maxLength: 12 }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom('…', '...'),
        (chunks, mark) => {
          const shown = ShownCuts.names(mark);
          const all: string[] = [...chunks[0]!];
          let width = uniqueWidth(chunks[0]!, mark);
          shown.sizeFor(chunks[0]!, width);
          for (const chunk of chunks.slice(1)) {
            all.push(...chunk);
            const expected = uniqueWidth(all, mark, width);
            expect(shown.sizeFor(chunk, width)).toBe(expected);
            width = expected;
          }
        },
      ),
    );
  });
});
