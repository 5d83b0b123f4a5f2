// src/http/errors.ts at the edges its mutation run found unpinned: the 429 hint's words from each
// Retry-After form, which 409 codes mean "still being processed" (the sandbox's and Stripe's), the
// URLs a server echoes in its error details (masked at every depth up to the redaction limit), and
// a connection error's defaults.

import { describe, expect, it } from 'vitest';
import {
  apiErrorFrom,
  ConnectionError,
  ConnectionTimeoutError,
  OutcomeUnknownError,
  parseErrorBody,
  stillRunning,
} from '../../src/http/errors.js';
import { MAX_REDACT_DEPTH } from '../../src/http/redact.js';
import { withConcurrency } from '../../src/system/command-scope.js';

const hintOf = (retryAfter: string | string[] | undefined, waitsAtMostMs?: number) =>
  apiErrorFrom(
    429,
    'Too Many Requests',
    retryAfter === undefined ? {} : { 'retry-after': retryAfter },
    '',
    [],
    {},
    new Set(),
    '',
    waitsAtMostMs,
  ).hint;

describe('a 429 that is still one after the retries', () => {
  const ranOut = "the server limits how fast it is called and svc's retries ran out";
  it.each<[string, string | string[] | undefined, string]>([
    ['seconds', '5', 'wait 5 s (the server asks for that in Retry-After)'],
    ['seconds with spaces', ' 12 ', 'wait 12 s (the server asks for that in Retry-After)'],
    ['the first of two headers', ['7', '9'], 'wait 7 s (the server asks for that in Retry-After)'],
    ['zero seconds', '0', 'wait a minute'],
    [
      'an HTTP date',
      'Wed, 25 Nov 2026 19:00:00 GMT',
      "wait until Wed, 25 Nov 2026 19:00:00 GMT (the server's Retry-After)",
    ],
    ['words', 'soon', 'wait a minute'],
    ['a number with a unit', '5s', 'wait a minute'],
    ['none', undefined, 'wait a minute'],
    ['empty', '', 'wait a minute'],
    // Only whole digits are seconds (RFC 9110 §10.2.3): not an exponent, a hex number or a decimal.
    ['an exponent', '1e3', 'wait a minute'],
    ['zeros', '00', 'wait a minute'],
    // Nor does Date.parse's leniency make a date of a number: retries read these as unreadable too.
    ['a decimal', '1.5', 'wait a minute'],
    ['a signed number', '+5', 'wait a minute'],
    [
      "an HTTP date in asctime's form, ending in digits",
      'Sun Nov  6 08:49:37 1994',
      "wait until Sun Nov  6 08:49:37 1994 (the server's Retry-After)",
    ],
    [
      'an ISO date, which is not an HTTP date (the retries do not read it either)',
      '2026-11-25T19:00:00Z',
      'wait a minute',
    ],
  ])('Retry-After %s', (_name, retryAfter, when) => {
    expect(hintOf(retryAfter)).toBe(`${ranOut}: ${when} and run the command again`);
  });

  // review21c F7: "lower --concurrency" only where the running command has the flag.
  it('in a bulk command (it has --concurrency): run it again with a lower one', async () => {
    expect(await withConcurrency(async () => hintOf('5'))).toBe(
      `${ranOut}: wait 5 s (the server asks for that in Retry-After) and run the command again with a lower --concurrency`,
    );
    expect(hintOf('5')).toBe(
      `${ranOut}: wait 5 s (the server asks for that in Retry-After) and run the command again`,
    );
  });

  it('a wait longer than svc makes by itself says so, and no lower --concurrency helps it', async () => {
    const words =
      'the server limits how fast it is called and asks for a longer wait than svc makes by itself (60 s): wait 120 s (the server asks for that in Retry-After) and run the command again';
    expect(hintOf('120', 60_000)).toBe(words);
    expect(await withConcurrency(async () => hintOf('120', 60_000))).toBe(words);
  });
});

describe('stillRunning', () => {
  it.each<[number, string | undefined, boolean]>([
    [409, 'idempotency_request_in_progress', true],
    [409, 'idempotency_key_in_use', true],
    [409, 'assignment_exists', false],
    [409, undefined, false],
    [429, 'idempotency_key_in_use', false],
    [400, 'idempotency_request_in_progress', false],
  ])('%i %s: %s', (status, code, running) => {
    expect(stillRunning(status, code)).toBe(running);
  });
});

describe('URLs a server echoes in its error', () => {
  const url = 'https://hooks.example.com/in?token=SECRETTOKEN123';
  const masked = 'https://hooks.example.com/in?token=[redacted]';

  it('are masked in the message and at any depth of the details; other values stay', () => {
    const body = {
      error: {
        code: 'target_unreachable',
        message: `url ${url} is not reachable`,
        details: [{ field: 'url', value: url, tries: 3, ok: false, none: null, deeper: { list: [url] } }],
      },
    };
    const parsed = parseErrorBody(422, '', JSON.stringify(body));
    expect(parsed.message).toBe(`url ${masked} is not reachable`);
    expect(parsed.details).toEqual([
      { field: 'url', value: masked, tries: 3, ok: false, none: null, deeper: { list: [masked] } },
    ]);
  });

  it('are left for the trace redaction to cut below its depth limit', () => {
    let deep: unknown = url;
    for (let i = 0; i < MAX_REDACT_DEPTH + 1; i++) deep = [deep];
    const parsed = parseErrorBody(422, '', JSON.stringify({ details: deep }));
    let inner: unknown = parsed.details;
    for (let i = 0; i < MAX_REDACT_DEPTH; i++) inner = (inner as unknown[])[0];
    expect(inner).toEqual([url]);
  });

  it('are left for the trace redaction to cut below its depth limit in objects too, however deep', () => {
    // Nested far deeper than the limit: walked to the end, it would overflow the stack.
    const depth = 50_000;
    const parsed = parseErrorBody(
      422,
      '',
      `{"details":${'{"a":'.repeat(depth)}"${url}"${'}'.repeat(depth)}}`,
    );
    let inner: unknown = parsed.details;
    for (let i = 0; i < MAX_REDACT_DEPTH; i++) inner = (inner as { a: unknown }).a;
    expect(inner).toEqual({ a: { a: expect.any(Object) } });
  });

  it('a text body is made one line, tags out, masked', () => {
    expect(parseErrorBody(502, 'Bad Gateway', `<h1>bad</h1>\n<p>posting to ${url}</p>`).message).toBe(
      `bad posting to ${masked}`,
    );
  });

  it('a tag parts words as a space does', () => {
    expect(parseErrorBody(502, 'Bad Gateway', '<b>upstream</b><i>unavailable</i>').message).toBe(
      'upstream unavailable',
    );
  });
});

describe('ConnectionError', () => {
  it('may have arrived and may be retried unless said otherwise', () => {
    const error = new ConnectionError('socket hang up');
    expect([error.mayHaveArrived, error.retryable, error.code, error.category]).toEqual([
      true,
      true,
      'connection_error',
      'failure',
    ]);
    const refused = new ConnectionError('ECONNREFUSED', { mayHaveArrived: false, retryable: false });
    expect([refused.mayHaveArrived, refused.retryable]).toEqual([false, false]);
  });
});

describe('the words of the other transport errors', () => {
  it('a request that got no answer in time has the code timeout', () => {
    const error = new ConnectionTimeoutError('no answer from https://api.example.com within 30 s');
    expect([error.code, error.category]).toEqual(['timeout', 'failure']);
  });

  it('an unknown outcome tells the user to check before running again unless told otherwise', () => {
    const unknown = new OutcomeUnknownError(new ConnectionError('socket hang up'));
    expect(unknown.message).toBe(
      'socket hang up, so the outcome is unknown: the platform may have made this change',
    );
    expect(unknown.hint).toBe('check whether it was made before running the command again');
  });

  it('a 431 names the largest header and where it came from', () => {
    const error = apiErrorFrom(
      431,
      'Request Header Fields Too Large',
      {},
      '',
      [],
      { 'x-big': 'x'.repeat(5000), accept: 'application/json' },
      new Set(['x-big']),
      '/v1/me',
    );
    expect(error.hint).toMatch(/^the largest header svc sent is x-big \(.+\), given with -H: shorten it$/);
  });
});
