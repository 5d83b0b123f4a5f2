// src/output/format.ts's sentence helpers at their edges: a value echoed bounded (quoted), a
// stored time in whole seconds (inWholeSeconds), a few names then a count (someNames) and facts
// joined with "and" (andList). The mutation run of src/output found them reached by no test of its
// selection (their users' tests are elsewhere).

import { describe, expect, it } from 'vitest';
import { andList, inWholeSeconds, quoted, someNames } from '../../src/output/format.js';

describe('quoted', () => {
  it.each<[unknown, string]>([
    ['abc', '"abc"'],
    ['say "hi"', '"say \\"hi\\""'],
    [5, '5'],
    [10n, '10'],
    [true, 'true'],
    [null, 'null'],
    [undefined, 'undefined'],
    [{ a: 1 }, '{"a":1}'],
    [['x'], '["x"]'],
    ['a'.repeat(200), `"${'a'.repeat(200)}"`],
  ])('value %# whole up to 200 characters: %s', (value, text) => {
    expect(quoted(value)).toBe(text);
  });

  it('a longer text: its first 60 and last 40 characters, and its length', () => {
    const value = `${'s'.repeat(60)}${'m'.repeat(101)}${'e'.repeat(40)}`;
    expect(quoted(value)).toBe(`"${'s'.repeat(60)}…${'e'.repeat(40)}" (201 characters)`);
  });

  it('a longer map: its JSON text cut the same way, unquoted', () => {
    const value = { k: 'v'.repeat(300) };
    expect(quoted(value)).toBe(`{"k":"${'v'.repeat(54)}…${'v'.repeat(38)}"} (308 characters)`);
  });

  it('counts characters, not UTF-16 units: 200 emoji stay whole, 201 are cut', () => {
    expect(quoted('😀'.repeat(200))).toBe(`"${'😀'.repeat(200)}"`);
    expect(quoted('😀'.repeat(201))).toBe(`"${'😀'.repeat(60)}…${'😀'.repeat(40)}" (201 characters)`);
  });
});

describe('inWholeSeconds', () => {
  it.each<[string | undefined, string | null]>([
    [undefined, null],
    ['2026-01-02T03:04:05.678Z', '2026-01-02T03:04:05Z'],
    ['2026-01-02T03:04:05+02:00', '2026-01-02T01:04:05Z'],
    ['not a time', 'not a time'],
    ['', ''],
  ])('%j → %j', (time, shown) => {
    expect(inWholeSeconds(time)).toBe(shown);
  });
});

describe('someNames', () => {
  it.each<[string[], number | undefined, string]>([
    [[], undefined, ''],
    [['a'], undefined, 'a'],
    [['a', 'b', 'c', 'd', 'e'], undefined, 'a, b, c, d, e'],
    [['a', 'b', 'c', 'd', 'e', 'f'], undefined, 'a, b, c, d, e and 1 more'],
    [['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], undefined, 'a, b, c, d, e and 3 more'],
    [['a', 'b', 'c'], 2, 'a, b and 1 more'],
    [['a', 'b'], 2, 'a, b'],
  ])('%j (few %s): %s', (names, few, text) => {
    expect(someNames(names, few)).toBe(text);
  });
});

describe('andList', () => {
  it.each<[string[], string]>([
    [[], ''],
    [['a'], 'a'],
    [['a', 'b'], 'a and b'],
    [['a', 'b', 'c'], 'a, b and c'],
  ])('%j: %s', (facts, text) => {
    expect(andList(facts)).toBe(text);
  });
});
