/**
 * cutLongRuns (src/output/format.ts): an error's runs of over 200 characters without a space are
 * cut (attack24c F4), but a command svc gives to run, in backquotes, stays whole: a cut cursor in
 * `svc records ls … --cursor …` could not be pasted.
 */
import { describe, expect, it } from 'vitest';
import { cutLongRuns } from '../../src/output/format.js';
import { sym } from '../../src/output/symbols.js';

const long = `${'a'.repeat(150)}${'b'.repeat(150)}`;

describe('cutLongRuns', () => {
  it('cuts a long run outside backquotes to its first 60, its last 40 and its length', () => {
    expect(cutLongRuns(`user ${long} not found`)).toBe(
      `user ${'a'.repeat(60)}${sym.ellipsis}${'b'.repeat(40)} (300 characters) not found`,
    );
  });

  it('leaves a command in backquotes whole, however long its words', () => {
    const hint = `continue with \`svc records ls r --cursor ${long}\`, or start again`;
    expect(cutLongRuns(hint)).toBe(hint);
  });

  it('cuts outside and keeps inside in one text', () => {
    expect(cutLongRuns(`${long} \`svc x ${long}\``)).toBe(
      `${'a'.repeat(60)}${sym.ellipsis}${'b'.repeat(40)} (300 characters) \`svc x ${long}\``,
    );
  });

  it('leaves runs of 200 characters or fewer', () => {
    expect(cutLongRuns('x'.repeat(200))).toBe('x'.repeat(200));
  });
});
