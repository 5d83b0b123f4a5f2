// Boundaries of the output helpers (src/output: io.ts, format.ts, sanitize.ts, layout.ts) that
// the other output tests step over: colour switches, the edges of each relative-time unit, secret
// masks, escapes of each width, and the id/status rules of table fitting.

import { afterEach, describe, expect, it } from 'vitest';
import { cellText, maskSecret, relativeTime, rfc3339 } from '../../src/output/format.js';
import { colorEnabled, systemIO } from '../../src/output/io.js';
import { fitTable, shortenId, uniqueKeep } from '../../src/output/layout.js';
import { escapeForTerminal, escapeJsonForTerminal } from '../../src/output/sanitize.js';
import { renderTable } from '../../src/output/table.js';

describe('colorEnabled', () => {
  it.each([
    [true, {}, false, true],
    [false, {}, false, false],
    [true, {}, true, false],
    [false, { FORCE_COLOR: '1' }, false, true],
    [false, { FORCE_COLOR: '3' }, false, true],
    [true, { FORCE_COLOR: '0' }, false, false],
    [true, { FORCE_COLOR: 'false' }, false, false],
    [true, { FORCE_COLOR: '' }, false, true],
    [true, { FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
    [false, { FORCE_COLOR: '1' }, true, false],
    [true, { NO_COLOR: '1' }, false, false],
    [true, { NO_COLOR: '' }, false, true],
    [true, { TERM: 'dumb' }, false, false],
    [true, { TERM: 'xterm' }, false, true],
  ])('tty %s, env %j, --no-color %s: %s', (tty, env, flag, colour) => {
    expect(colorEnabled(tty, env, flag)).toBe(colour);
  });
});

describe('systemIO', () => {
  const saved = ['stdin', 'stdout', 'stderr'].map((name) => {
    const stream = process[name as 'stdin'];
    return [
      stream,
      Object.getOwnPropertyDescriptor(stream, 'isTTY'),
      Object.getOwnPropertyDescriptor(stream, 'columns'),
    ] as const;
  });
  afterEach(() => {
    for (const [stream, isTTY, columns] of saved) {
      if (isTTY) Object.defineProperty(stream, 'isTTY', isTTY);
      else delete (stream as { isTTY?: boolean }).isTTY;
      if (columns) Object.defineProperty(stream, 'columns', columns);
      else delete (stream as { columns?: number }).columns;
    }
  });
  const claim = (stream: NodeJS.ReadStream | NodeJS.WriteStream, isTTY: boolean | undefined) =>
    Object.defineProperty(stream, 'isTTY', { value: isTTY, configurable: true, writable: true });

  it('claims each process stream as it is, with its width', () => {
    claim(process.stdin, true);
    claim(process.stdout, undefined);
    claim(process.stderr, true);
    Object.defineProperty(process.stdout, 'columns', { value: 97, configurable: true, writable: true });
    const io = systemIO({}, { noColor: true });
    expect([io.stdinIsTTY, io.stdoutIsTTY, io.stderrIsTTY, io.columns]).toEqual([true, false, true, 97]);
    expect([io.stdin, io.stdout, io.stderr]).toEqual([process.stdin, process.stdout, process.stderr]);
    expect([io.colorStdout, io.colorStderr]).toEqual([false, false]);
    claim(process.stdin, false);
    claim(process.stdout, true);
    claim(process.stderr, undefined);
    const other = systemIO({});
    expect([other.stdinIsTTY, other.stdoutIsTTY, other.stderrIsTTY]).toEqual([false, true, false]);
    expect([other.colorStdout, other.colorStderr]).toEqual([true, false]);
  });
});

describe('format', () => {
  const NOW = Date.parse('2026-06-15T12:00:00Z');
  const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();

  // Whole units reached (a sixtieth of one to spare, at most a minute), each unit from two of it:
  // never rounded up (attack22 F8: 90 minutes was "in 2 hours", 18 months "in 2 years").
  it.each([
    [9, 'now'],
    [-9, 'now'],
    [10, 'in 10 seconds'],
    [-10, '10 seconds ago'],
    [59, 'in 59 seconds'],
    [60, 'in 60 seconds'],
    [-60, '60 seconds ago'],
    [59 * 60 + 29, 'in 59 minutes'],
    [59 * 60 + 30, 'in 59 minutes'],
    [59 * 60 + 59, 'in 60 minutes'],
    [23 * 3600 + 1800, 'in 23 hours'],
    [-24 * 3600, '24 hours ago'],
    [89, 'in 89 seconds'],
    [90, 'in 90 seconds'],
    [120, 'in 2 minutes'],
    [89 * 60, 'in 89 minutes'],
    [90 * 60, 'in 90 minutes'],
    [120 * 60, 'in 2 hours'],
    [47 * 3600, 'in 47 hours'],
    [48 * 3600, 'in 2 days'],
    [7 * 86400, 'in 7 days'],
    [59 * 86400, 'in 59 days'],
    [60 * 86400, 'in 60 days'],
    [-60 * 86400, '60 days ago'],
    [61 * 86400, 'in 2 months'],
    [30 * 86400 + 43199, 'in 30 days'],
    // A month is 30.4375 days, a year 365.25 (averages): 517 days is 16.99 months, 3 × 365 days 2.998
    // years; within a month's spare (12 h 10 min 30 s) and a year's (a day) they count whole.
    [517 * 86400, 'in 17 months'],
    [518 * 86400, 'in 17 months'],
    [548 * 86400, 'in 18 months'],
    [730 * 86400, 'in 2 years'],
    [-365 * 86400, '12 months ago'],
    [-3 * 365 * 86400, '3 years ago'],
    [-3 * 365.25 * 86400, '3 years ago'],
    // review22b F5: the spare is a sixtieth of the unit and never more than a minute for minutes,
    // hours and days, nor more than a day for months and years (average lengths), so nothing is
    // overstated by more (it was 24 min for days, 6 days for years): 47 h 36 min was "in 2 days",
    // 724.5 days "in 2 years". Each unit's edge, either side.
    [118.9, 'in 118 seconds'],
    [119, 'in 2 minutes'],
    [-119, '2 minutes ago'],
    [2 * 3600 - 60, 'in 2 hours'],
    [2 * 3600 - 60.1, 'in 119 minutes'],
    [8 * 3600 - 60, 'in 8 hours'],
    [8 * 3600 - 60.1, 'in 7 hours'],
    [47 * 3600 + 36 * 60, 'in 47 hours'],
    [48 * 3600 - 60.1, 'in 47 hours'],
    [48 * 3600 - 60, 'in 2 days'],
    [-(48 * 3600 - 60), '2 days ago'],
    [7 * 86400 - 60.1, 'in 6 days'],
    [60 * 86400 + 8 * 3600, 'in 60 days'],
    [60.875 * 86400 - 43830.1, 'in 60 days'],
    [60.875 * 86400 - 43830, 'in 2 months'],
    [724.5 * 86400, 'in 23 months'],
    [729.5 * 86400 - 0.1, 'in 23 months'],
    [729.5 * 86400, 'in 2 years'],
    [3 * 365.25 * 86400 - 86400.1, 'in 2 years'],
  ])('relativeTime %i s from now is %j', (seconds, words) => {
    expect(relativeTime(at(seconds), NOW)).toBe(words);
  });

  it('takes epoch milliseconds too, and passes other values through', () => {
    expect(relativeTime(NOW - 3 * 3600 * 1000, NOW)).toBe('3 hours ago');
    expect(relativeTime(null, NOW)).toBe('');
    expect(relativeTime({ a: 1 }, NOW)).toBe('{"a":1}');
    expect(rfc3339(NOW)).toBe('2026-06-15T12:00:00Z');
    expect(rfc3339(true)).toBe('true');
    expect(rfc3339('soon\tish')).toBe('soon ish');
  });

  it.each([
    ['a\t\tb', 'a b'],
    ['a\r\n\r\nb', 'a b'],
    [['x', null, 'y'], 'x,,y'],
    [false, 'false'],
  ])('cellText(%j) is %j', (value, text) => {
    expect(cellText(value)).toBe(text);
  });

  it.each([
    ['123456789012', '****'],
    ['1234567890123', '****0123'],
    ['svc_pk_0123456789', 'svc_pk_****6789'],
    ['Bearer abcdefghijkl', 'Bearer ****ijkl'],
    ['x-svc_sk_0123456789', '****6789'],
    ['my eyJhbGciOiJ9.x.y', '****.x.y'],
  ])('maskSecret(%j) is %j', (secret, masked) => {
    expect(maskSecret(secret)).toBe(masked);
  });
});

describe('sanitize', () => {
  it('escapes one-byte characters as \\xNN and wider ones as \\uNNNN', () => {
    expect(escapeForTerminal('\u00ff\u0080\u009f\u061c\u200e\u2069')).toBe(
      '\u00ff\\x80\\x9f\\u061c\\u200e\\u2069',
    );
    expect(escapeJsonForTerminal('"\u007f\u061c"')).toBe('"\\u007f\\u061c"');
  });
});

describe('layout', () => {
  it('shortenId keeps an id that would only lose one character', () => {
    expect(shortenId('dlq_1234567', 6)).toBe('dlq_1234567');
    expect(shortenId('dlq_12345678', 6)).toBe('dlq_123456…');
    expect(shortenId('ab_123456789', 6)).toBe('ab_123456…');
    expect(shortenId('abcdefghi_123456789', 6)).toBe('abcdef…');
  });

  it('uniqueKeep ignores empty cells and "-", and stops at the longest id', () => {
    expect(uniqueKeep(['', '-', '', '-'])).toBe(0);
    expect(uniqueKeep(['dlv_aaaaaaa1', '-', '', 'dlv_aaaaaaa1'])).toBe(6);
    expect(uniqueKeep(['dlv_aaaaaaa1', 'dlv_aaaaaaa2'])).toBe(7);
    expect(uniqueKeep(['dlv_aaaaaa1', 'dlv_aaaaaa2'])).toBe(6);
  });

  it('an id or status column counts whole when deciding which columns stay; a text counts at most 40', () => {
    const head = ['ID', 'STATUS', 'TEXT', 'OPT'];
    const id = 'x'.repeat(50);
    const rows = [[id, 'y'.repeat(45), 't'.repeat(60), 'o']];
    const fit = [
      { kind: 'id' as const, dropRank: 0 },
      { kind: 'status' as const, dropRank: 0 },
      { kind: 'text' as const, dropRank: 0 },
      { kind: 'detail' as const, dropRank: 1 },
    ];
    // 50 + 45 + 40 + 3 + 6 = 144 fits 144 with OPT; 143 does not.
    expect(fitTable(head, rows, fit, 144, false).shown).toEqual([0, 1, 2, 3]);
    expect(fitTable(head, rows, fit, 143, false).shown).toEqual([0, 1, 2]);
  });

  it('drops the rightmost column first within a rank, and stops as soon as the table fits', () => {
    const head = ['A', 'B', 'C', 'D'];
    const rows = [['aaaa', 'bbbb', 'cccc', 'dddd']];
    const fit = [
      { kind: 'text' as const, dropRank: 0 },
      { kind: 'text' as const, dropRank: 1 },
      { kind: 'text' as const, dropRank: 1 },
      { kind: 'text' as const, dropRank: 1 },
    ];
    expect(fitTable(head, rows, fit, 22, false).shown).toEqual([0, 1, 2, 3]);
    expect(fitTable(head, rows, fit, 21, false).shown).toEqual([0, 1, 2]);
    expect(fitTable(head, rows, fit, 15, false).shown).toEqual([0, 1]);
  });

  it('shortens an id only when that makes it narrower, and forgets ids of dropped columns', () => {
    const head = ['ID', 'NOTE'];
    const rows = [['dlq_31e3ec6adaece4ff47ee93b6', 'n'.repeat(30)]];
    const shortened = fitTable(
      head,
      rows,
      [
        { kind: 'id', dropRank: 0 },
        { kind: 'text', dropRank: 0 },
      ],
      40,
      false,
    );
    expect(shortened).toEqual({
      shown: [0, 1],
      widths: [11, 27],
      idKeep: new Map([[0, 6]]),
      least: new Map(),
    });
    const dropped = fitTable(
      head,
      rows,
      [
        { kind: 'id', dropRank: 1 },
        { kind: 'text', dropRank: 0 },
      ],
      20,
      false,
    );
    expect(dropped.shown).toEqual([1]);
    expect(dropped.idKeep).toEqual(new Map());
    const short = fitTable(
      ['ID', 'X'],
      [['usr_viewer', 'x'.repeat(40)]],
      [
        { kind: 'id', dropRank: 0 },
        { kind: 'text', dropRank: 0 },
      ],
      30,
      false,
    );
    expect(short.idKeep).toEqual(new Map());
  });

  it('cuts the widest text column first, and never a time (attack22b F3)', () => {
    const head = ['A', 'B', 'C'];
    const rows = [['a'.repeat(12), 'b'.repeat(10), 'c'.repeat(8)]];
    const fit = [
      { kind: 'text' as const, dropRank: 0 },
      { kind: 'time' as const, dropRank: 0 },
      { kind: 'status' as const, dropRank: 0 },
    ];
    expect(fitTable(head, rows, fit, 30, false).widths).toEqual([8, 10, 8]);
  });
});

describe('renderTable', () => {
  it('is borderless, two spaces apart, cut with "…", without trailing spaces', () => {
    expect(renderTable(['A', 'LONGER'], [['x', 'abcdefghij']], [3, 6])).toBe('A    LONGER\nx    abcde…\n');
    expect(renderTable(undefined, [['x', 'y']], [1, 1])).toBe('x  y\n');
  });

  it('does not colour headers or borders itself', () => {
    const text = renderTable(['H'], [['v']], [1]);
    expect(text).not.toContain('\u001b');
  });
});
