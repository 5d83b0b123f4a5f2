import { describe, expect, it } from 'vitest';
import { cellText, maskSecret, relativeTime, rfc3339, stripControl } from '../../src/output/format.js';

const NOW = Date.parse('2026-06-15T12:00:00Z');

describe('text for terminals', () => {
  it.each([
    ['ANSI colour', 'a\u001b[31mred\u001b[0m', 'ared'],
    ['OSC 8 hyperlink / title', 'x\u001b]0;pwned\u0007y', 'xy'],
    ['bell and backspace', 'a\u0007b\u0008c', 'abc'],
    ['C1 control', 'a\u009bb', 'ab'],
    ['bidi override (Trojan Source)', 'abc\u202edef', 'abcdef'],
    ['newline kept', 'a\nb', 'a\nb'],
    ['plain text', 'Acme Treasury', 'Acme Treasury'],
  ])('stripControl: %s', (_name, input, expected) => {
    expect(stripControl(input)).toBe(expected);
  });

  it.each([
    [null, ''],
    [undefined, ''],
    [['a', 'b'], 'a,b'],
    [{ a: 1 }, '{"a":1}'],
    ['tab\there\nnewline', 'tab here newline'],
    [42, '42'],
  ])('cellText(%j)', (value, expected) => {
    expect(cellText(value)).toBe(expected);
  });

  it.each([
    ['2026-06-15T11:59:58Z', 'now'],
    ['2026-06-15T11:59:30Z', '30 seconds ago'],
    ['2026-06-15T09:00:00Z', '3 hours ago'],
    ['2026-06-16T12:00:00Z', 'tomorrow'],
    ['2026-06-01T12:00:00Z', '2 weeks ago'],
    ['2024-01-15T09:00:00Z', '2 years ago'],
    ['not a time', 'not a time'],
  ])('relativeTime(%s)', (value, expected) => {
    expect(relativeTime(value, NOW)).toBe(expected);
  });

  it('prints RFC 3339 with second precision', () => {
    expect(rfc3339('2026-06-15T12:00:00.123Z')).toBe('2026-06-15T12:00:00Z');
    expect(rfc3339('2026-06-15T14:00:00+02:00')).toBe('2026-06-15T12:00:00Z');
  });

  it.each([
    ['short', '****'],
    ['svc_sk_abcdefghijklmnop', 'svc_sk_****mnop'],
    ['eyJhbGciOiJIUzI1NiJ9.x.signature', 'eyJ****ture'],
  ])('maskSecret(%s)', (secret, expected) => {
    expect(maskSecret(secret)).toBe(expected);
  });
});
