/**
 * The numbers of an answer as the server wrote them (review s13 api13, findings 4 and 8): kept
 * beside the parsed value, printed by jsonAsTheyCame, and never missed by the cheap pre-check
 * that spares most answers the scan.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hasNumbersAsTheyCame,
  jsonAsTheyCame,
  keepNumbersAsTheyCame,
  numbersAsTheyCame,
  spreadAsTheyCame,
} from '../../src/api/numbers-as-they-came.js';

function parsed(text: string): unknown {
  const value = JSON.parse(text);
  keepNumbersAsTheyCame(text, value);
  return value;
}

describe('numbers as they came', () => {
  it('prints every number as written, at any place in the answer', () => {
    const text =
      '{"a":1.000000000000000001,"b":[-0,100.50,{"c":12345678901234567891}],"d":1E2,"e":1.5,"t":"2026-01-01T00:00:00.000Z"}';
    expect(jsonAsTheyCame(parsed(text))).toBe(text);
    expect(jsonAsTheyCame((parsed(text) as { b: unknown[] }).b)).toBe(
      '[-0,100.50,{"c":12345678901234567891}]',
    );
    expect([...numbersAsTheyCame(parsed(text)).values()]).toEqual([
      '1.000000000000000001',
      '-0',
      '100.50',
      '12345678901234567891',
      '1E2',
    ]);
  });

  it('an answer inside a wrapper svc builds keeps its numbers (attack27b F2)', () => {
    const record = parsed('{"id":"r","amount":100.50,"big":9007199254740993,"neg":-0}');
    expect(jsonAsTheyCame({ outcome: 'deleted', record })).toBe(
      '{"outcome":"deleted","record":{"id":"r","amount":100.50,"big":9007199254740993,"neg":-0}}',
    );
    expect(jsonAsTheyCame([{ at: [record] }])).toBe(
      '[{"at":[{"id":"r","amount":100.50,"big":9007199254740993,"neg":-0}]}]',
    );
    const cycle: Record<string, unknown> = { record: parsed('{"a":1}') };
    cycle.self = cycle;
    expect(() => jsonAsTheyCame(cycle)).toThrow(TypeError);
  });

  it('a number changed since is printed as it now is', () => {
    const value = parsed('{"a":9007199254740993}') as { a: number };
    value.a = 5;
    expect(jsonAsTheyCame(value)).toBe('{"a":5}');
  });

  it('no number a double writes otherwise goes unnoticed (the pre-check never misses one)', () => {
    const numeral = fc
      .tuple(
        fc.constantFrom('', '-'),
        fc.stringMatching(/^(0|[1-9]\d{0,24})$/),
        fc.option(fc.stringMatching(/^\d{1,24}$/)),
        fc.option(
          fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 30 })),
        ),
      )
      .map(
        ([sign, int, frac, exp]) =>
          `${sign}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `${exp[0]}${exp[1]}${exp[2]}`}`,
      );
    fc.assert(
      fc.property(numeral, fc.constantFrom('{"k":%}', '[%]', '[1, %]', '{"k" : [ %]}'), (raw, shape) => {
        const text = shape.replace('%', raw);
        const printed = jsonAsTheyCame(parsed(text));
        expect(printed.replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the scan only where numbers are printed as values (review s13 http #2)', () => {
  const url = new URL('http://127.0.0.1/v1/x');
  const text = '{"items":[{"amount":100.50,"k\\"ey":1.000000000000000001}],"next_cursor":null}';

  it('an answer `svc api` prints as text is parsed, not scanned; one printed as values is', async () => {
    const { checkedBody } = await import('../../src/http/response.js');
    const { hasNumbersAsTheyCame } = await import('../../src/api/numbers-as-they-came.js');
    expect(hasNumbersAsTheyCame(checkedBody('GET', url, 200, {}, text, 'text'))).toBe(false);
    const raw = checkedBody<{ items: unknown[] }>('GET', url, 200, {}, text, 'raw');
    expect(jsonAsTheyCame(raw.items[0])).toBe('{"amount":100.50,"k\\"ey":1.000000000000000001}');
  });

  it('0.0000001 alone in an answer is kept as written', () => {
    expect(jsonAsTheyCame(parsed('{"r":0.0000001,"s":[0.00000012]}'))).toBe(
      '{"r":0.0000001,"s":[0.00000012]}',
    );
  });
});

describe('spreadAsTheyCame: a copy of answers into svc object keeps their numbers (fixnum2)', () => {
  const answer = (text: string) => {
    const value = JSON.parse(text) as Record<string, unknown>;
    keepNumbersAsTheyCame(text, value);
    return value;
  };

  it('each member as its part wrote it; a later part without a note wins over an earlier note', () => {
    const made = answer('{"big":9007199254740993,"rate":1.10,"over":2.50}');
    const now = answer('{"over":2.5,"nested":{"x":1.10}}');
    const copy = spreadAsTheyCame(made, now, { outcome: 'revoked' });
    expect(jsonAsTheyCame(copy)).toBe(
      '{"big":9007199254740993,"rate":1.10,"over":2.5,"nested":{"x":1.10},"outcome":"revoked"}',
    );
  });

  it('a plain spread loses them (why the rule exists)', () => {
    const made = answer('{"big":9007199254740993,"rate":1.10}');
    expect(jsonAsTheyCame({ ...made, outcome: 'revoked' })).toBe(
      '{"big":9007199254740992,"rate":1.1,"outcome":"revoked"}',
    );
  });

  it('an unmarked part leaves the copy unmarked', () => {
    expect(hasNumbersAsTheyCame(spreadAsTheyCame({ a: 1 }, { b: 2 }))).toBe(false);
  });
});
