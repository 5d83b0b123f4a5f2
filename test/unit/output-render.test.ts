// How a failed command reads (src/output/errors.ts) and the progress bar of bulk runs
// (src/output/progress.ts), byte for byte: both are what a user sees when something goes wrong
// or takes long.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SvcError, UsageError } from '../../src/errors.js';
import { apiErrorFrom, ConnectionError } from '../../src/http/errors.js';
import { errorReport, renderError } from '../../src/output/errors.js';
import { createProgress } from '../../src/output/progress.js';

const TEXT = { json: false, debug: false };

describe('renderError', () => {
  it.each([
    [
      'a usage error with its hint',
      new UsageError('bad flag', { hint: 'see --help' }),
      'error: bad flag; see --help\n',
    ],
    ['an error without a hint', new ConnectionError('connection refused'), 'error: connection refused\n'],
    [
      'an API error: status, code and request id in parentheses',
      apiErrorFrom(
        409,
        'Conflict',
        { 'x-request-id': 'req_9' },
        '{"error":{"code":"exists","message":"role exists"}}',
      ),
      'error: role exists (HTTP 409, exists, request req_9)\n',
    ],
    [
      "an API error without a code: none is shown (svc's category is not the API's code), no request id",
      apiErrorFrom(500, 'Internal Server Error', {}, ''),
      'error: 500 Internal Server Error (HTTP 500)\n',
    ],
    [
      'field details on the same line, at most 5, the rest counted',
      apiErrorFrom(
        422,
        'Unprocessable',
        {},
        JSON.stringify({
          error: {
            code: 'invalid',
            message: 'invalid body',
            details: [
              { field: 'name', message: 'required' },
              { path: '/a/b', message: 'too long' },
              { message: 'no place' },
              { field: 3, other: true },
              'plain',
              ...Array.from({ length: 20 }, (_, i) => `extra ${i}`),
            ],
          },
        }),
      ),
      'error: invalid body [name: required; /a/b: too long; no place; {"field":3,"other":true}; plain; and 20 more (--json shows them all)] (HTTP 422, invalid)\n',
    ],
    [
      'a detail that repeats the message is left out; five are shown whole, no "and 0 more"',
      apiErrorFrom(
        422,
        'Unprocessable',
        {},
        JSON.stringify({
          error: {
            message: 'value undefined: name is required',
            details: [
              { field: 'name', message: 'name is required' },
              { field: 'a', code: 1 },
              'b',
              'c',
              'd',
              'e',
            ],
          },
        }),
      ),
      'error: value undefined: name is required [a: {"field":"a","code":1}; b; c; d; e] (HTTP 422)\n',
    ],
    [
      'no brackets when every detail repeats the message or the list is empty',
      apiErrorFrom(
        400,
        'Bad Request',
        {},
        '{"error":{"message":"name is required","details":[{"field":"name","message":"is required"}]}}',
      ),
      'error: name is required (HTTP 400)\n',
    ],
    [
      'an empty list of details',
      apiErrorFrom(400, 'Bad Request', {}, '{"error":{"message":"m","details":[]}}'),
      'error: m (HTTP 400)\n',
    ],
    [
      'details that are not a list are not printed',
      apiErrorFrom(400, 'Bad Request', {}, '{"error":{"message":"m","details":{"a":1}}}'),
      'error: m (HTTP 400)\n',
    ],
    [
      'an unexpected error asks for a report',
      new TypeError('x is undefined'),
      'error: x is undefined; this is a bug in svc, please report it (run with --debug for details)\n',
    ],
    [
      'newlines and escapes in a message stay on one visible line',
      new SvcError('failure', 'line one\r\nline two \u001b[2J'),
      'error: line one line two \\x1b[2J\n',
    ],
  ])('%s', (_name, error, expected) => {
    expect(renderError(error, TEXT)).toBe(expected);
  });

  it('a suggestion (did you mean) goes before the hint, or stands alone', () => {
    const suggestion = "did you mean 'roles list'?";
    expect(renderError(new UsageError('unknown verb', { hint: 'see --help' }), { ...TEXT, suggestion })).toBe(
      "error: unknown verb; did you mean 'roles list'?; see --help\n",
    );
    expect(renderError(new UsageError('unknown verb'), { ...TEXT, suggestion })).toBe(
      "error: unknown verb; did you mean 'roles list'?\n",
    );
  });

  it('scrubs known secrets from the message and the hint', () => {
    const error = new UsageError('token tok_abcdefgh123 refused', { hint: 'not tok_abcdefgh123' });
    expect(renderError(error, { ...TEXT, secrets: ['tok_abcdefgh123'] })).toBe(
      'error: token [redacted] refused; not [redacted]\n',
    );
  });

  it('with --json: one JSON object with the same facts, escaped for a terminal', () => {
    const error = apiErrorFrom(
      404,
      'Not Found',
      { 'x-request-id': 'req_1' },
      '{"error":{"code":"nope","message":"gone \u009b","details":[1]}}',
    );
    expect(renderError(error, { json: true, debug: false })).toBe(
      '{"error":{"code":"nope","message":"gone \\u009b","exit_code":5,"status":404,"request_id":"req_1","details":[1]}}\n',
    );
    expect(renderError(new UsageError('u', { hint: 'h' }), { json: true, debug: true })).toBe(
      '{"error":{"code":"usage","message":"u","exit_code":2,"hint":"h"}}\n',
    );
  });

  it('with --debug, the stack of an unexpected error (redacted), never of svc’s own errors', () => {
    const bug = new Error('boom svc_sk_abcdefghijklmnopqrstu');
    bug.stack = 'Error: boom svc_sk_abcdefghijklmnopqrstu\n    at f (file.ts:1:1)';
    expect(renderError(bug, { json: false, debug: true })).toBe(
      'error: boom svc_sk_[redacted]; this is a bug in svc, please report it (run with --debug for details)\n' +
        'Error: boom svc_sk_[redacted]\n    at f (file.ts:1:1)\n',
    );
    expect(renderError(bug, { json: false, debug: false })).not.toContain('at f');
    const own = new UsageError('mine');
    expect(renderError(own, { json: false, debug: true })).toBe('error: mine\n');
  });

  it('errorReport: code falls back to the category; a thrown string is unexpected', () => {
    expect(errorReport(new SvcError('conflict', 'c'))).toEqual({
      code: 'conflict',
      message: 'c',
      exit_code: 6,
    });
    expect(errorReport('just text')).toEqual({ code: 'unexpected', message: 'just text', exit_code: 1 });
    expect(errorReport(apiErrorFrom(401, 'Unauthorized', {}, '{"message":"m"}'))).toEqual({
      code: 'auth',
      message: 'm',
      exit_code: 3,
      status: 401,
    });
  });
});

describe('createProgress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const capture = () => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    return { stream, chunks };
  };
  const CLEAR = '\r\u001b[2K';

  it('draws nothing and clears nothing when disabled', () => {
    const { stream, chunks } = capture();
    const progress = createProgress(stream, false, 10, 'granting');
    progress.tick('ok');
    progress.done();
    expect(chunks).toEqual([]);
  });

  it('draws a bar with counts, share, rate and failures, at most every 100 ms, and clears it when done', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, chunks } = capture();
    const progress = createProgress(stream, true, 1200, 'granting');
    vi.setSystemTime(1_000_500);
    progress.tick('ok');
    vi.setSystemTime(1_000_550);
    progress.tick('failed');
    vi.setSystemTime(1_000_600);
    progress.tick('skipped');
    vi.setSystemTime(1_001_000);
    for (let i = 0; i < 296; i++) progress.tick('ok');
    vi.setSystemTime(1_001_100);
    progress.tick('ok');
    progress.done();
    expect(chunks).toEqual([
      `${CLEAR}granting [........................] 1/1,200 0% · 2/s`,
      `${CLEAR}granting [........................] 3/1,200 0% · 5/s · 1 failed, 1 skipped`,
      `${CLEAR}granting [........................] 4/1,200 0% · 4/s · 1 failed, 1 skipped`,
      `${CLEAR}granting [######..................] 300/1,200 25% · 273/s · 1 failed, 1 skipped`,
      CLEAR,
    ]);
  });

  it('in a locale that is not UTF-8: ASCII separators', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, chunks } = capture();
    const progress = createProgress(stream, true, 10, 'granting', false);
    vi.setSystemTime(1_000_500);
    progress.tick('failed');
    expect(chunks).toEqual([`${CLEAR}granting [##......................] 1/10 10% - 2/s - 1 failed`]);
  });

  it('without a total: the count and the rate only; done clears only what was drawn', () => {
    vi.useFakeTimers({ now: 0 });
    const { stream, chunks } = capture();
    const progress = createProgress(stream, true, undefined, 'replaying');
    vi.setSystemTime(2000);
    progress.tick('failed');
    progress.done();
    expect(chunks).toEqual([`${CLEAR}replaying 1 · 1/s · 1 failed`, CLEAR]);
    const quiet = capture();
    createProgress(quiet.stream, true, 5, 'x').done();
    expect(quiet.chunks).toEqual([]);
  });

  /** A terminal's stream: its width is read at each frame, so a test can resize it between two. */
  const terminal = (columns: number) => {
    const made = capture();
    Object.assign(made.stream, { columns });
    return made;
  };
  const frames = (chunks: string[]) => chunks.map((c) => c.replace(CLEAR, ''));

  it('fits the terminal: the label is cut first, then the bar and the rate go, the counts stay', () => {
    vi.useFakeTimers({ now: 0 });
    const t = terminal(80);
    const label = 'replaying wh_0469c93f8ec9ac200ad15e37';
    const progress = createProgress(t.stream, true, 63, label);
    const at = (ms: number, columns: number, status: 'ok' | 'failed') => {
      Object.assign(t.stream, { columns });
      vi.setSystemTime(ms);
      progress.tick(status);
    };
    for (let i = 0; i < 18; i++) progress.tick('ok');
    for (let i = 0; i < 4; i++) progress.tick('failed');
    at(1000, 80, 'failed');
    at(1200, 60, 'ok');
    at(1400, 40, 'ok');
    at(1600, 32, 'ok');
    at(1800, 24, 'ok');
    at(2000, 120, 'ok');
    progress.done();
    expect(frames(t.chunks)).toEqual([
      // 92 characters whole: the label is cut to what is left of 79 (one column spare: no wrap).
      'replaying wh_0469c93f8e… [#########...............] 23/63 36% · 23/s · 5 failed',
      // The label would be cut below 10 characters: the bar goes instead, and the label grows back.
      'replaying wh_0469c93f8ec9ac200… 24/63 38% · 20/s · 5 failed',
      'replaying… 25/63 39% · 18/s · 5 failed',
      // Then the rate.
      'replaying… 26/63 41% · 5 failed',
      // Narrower still: the counts and failures alone.
      '27/63 42% · 5 failed',
      // A wider terminal again: the whole line.
      `${label} [###########.............] 28/63 44% · 14/s · 5 failed`,
      '',
    ]);
    for (const [i, columns] of [80, 60, 40, 32, 24].entries()) {
      expect([...frames(t.chunks)[i]!].length).toBeLessThan(columns);
    }
  });

  it('on a terminal narrower than the counts: cut to its width, never wrapped', () => {
    vi.useFakeTimers({ now: 0 });
    const t = terminal(12);
    const progress = createProgress(t.stream, true, 1200, 'granting', false);
    vi.setSystemTime(1000);
    progress.tick('failed');
    expect(frames(t.chunks)).toEqual(['1/1,200...']);
  });

  it("a stream that reports no width: the width given (the IOStreams' columns)", () => {
    vi.useFakeTimers({ now: 0 });
    const { stream, chunks } = capture();
    const progress = createProgress(stream, true, 10, 'granting roles to the whole team', true, 30);
    vi.setSystemTime(1000);
    progress.tick('ok');
    expect(frames(chunks)).toEqual(['granting role… 1/10 10% · 1/s']);
  });

  it('counts the rows of unknown outcome with the rest, and names them', () => {
    vi.useFakeTimers({ now: 0 });
    const { stream, chunks } = capture();
    const progress = createProgress(stream, true, 4, 'granting');
    progress.tick('ok');
    progress.tick('unknown');
    vi.setSystemTime(1000);
    progress.tick('unknown');
    expect(frames(chunks).at(-1)).toBe('granting [##################......] 3/4 75% · 3/s · 2 unknown');
  });

  it('a terminal that reports 0 columns: the width given', () => {
    vi.useFakeTimers({ now: 0 });
    const t = terminal(0);
    const progress = createProgress(t.stream, true, 10, 'granting roles to the whole team', true, 30);
    vi.setSystemTime(1000);
    progress.tick('ok');
    expect(frames(t.chunks)).toEqual(['granting role… 1/10 10% · 1/s']);
  });

  it('narrower than the ellipsis itself: the first characters, not a lone mark', () => {
    vi.useFakeTimers({ now: 0 });
    for (const [columns, unicode, frame] of [
      [2, true, '1'],
      [4, false, '1/1'],
    ] as const) {
      const t = terminal(columns);
      const progress = createProgress(t.stream, true, 1200, 'granting', unicode);
      vi.setSystemTime(1000 * columns);
      progress.tick('ok');
      expect(frames(t.chunks)).toEqual([frame]);
    }
  });

  it('a full bar at the total, never past it', () => {
    vi.useFakeTimers({ now: 0 });
    const { stream, chunks } = capture();
    const progress = createProgress(stream, true, 2, 'p');
    vi.setSystemTime(1000);
    progress.tick('ok');
    vi.setSystemTime(1200);
    progress.tick('ok');
    vi.setSystemTime(1400);
    progress.tick('ok');
    expect(chunks.slice(1)).toEqual([
      `${CLEAR}p [########################] 2/2 100% · 2/s`,
      `${CLEAR}p [########################] 3/2 100% · 2/s`,
    ]);
  });
});
