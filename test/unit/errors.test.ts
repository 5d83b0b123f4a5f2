import { describe, expect, it } from 'vitest';
import {
  AuthError,
  ChangesPendingError,
  ClosedPipeError,
  ConfigError,
  categoryForStatus,
  exitCodeFor,
  InterruptedError,
  NotFoundError,
  PartialFailureError,
  SvcError,
  UsageError,
} from '../../src/errors.js';
import {
  answerLeavesOutcomeUnknown,
  answerOf,
  apiErrorFrom,
  ConnectionError,
  ConnectionTimeoutError,
  OutcomeUnknownError,
} from '../../src/http/errors.js';
import { errorReport } from '../../src/output/errors.js';

describe('exit codes (the contract table, in one place)', () => {
  it.each([
    ['usage', new UsageError('x'), 2],
    ['config', new ConfigError('x'), 2],
    ['auth', new AuthError('x'), 3],
    ['local not found', new NotFoundError('x'), 5],
    ['partial', new PartialFailureError('x'), 7],
    ['signature mismatch', new SvcError('signature_mismatch', 'x'), 8],
    ['signature tolerance', new SvcError('signature_tolerance', 'x'), 9],
    ['changes pending (svc plan)', new ChangesPendingError('x'), 10],
    ['interrupted', new InterruptedError(), 130],
    ['connection', new ConnectionError('x'), 1],
    ['timeout', new ConnectionTimeoutError('x'), 1],
    ['closed pipe', new ClosedPipeError(), 0],
    ['a plain Error', new Error('boom'), 1],
    ['a thrown string', 'boom', 1],
  ])('%s → %i', (_name, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });

  it.each([
    [400, 2],
    [401, 3],
    [403, 4],
    [404, 5],
    [409, 6],
    [422, 2],
    [429, 1],
    [500, 1],
    [503, 1],
  ])('API status %i → exit %i', (status, code) => {
    expect(exitCodeFor(apiErrorFrom(status, '', {}, ''))).toBe(code);
    expect(categoryForStatus(status)).toBeTypeOf('string');
  });
});

describe('API error bodies of any shape still render', () => {
  it.each([
    [
      'the sandbox shape',
      '{"error":{"code":"tenant_forbidden","message":"not yours","request_id":"req_1"}}',
      { code: 'tenant_forbidden', message: 'not yours', requestId: 'req_1' },
    ],
    [
      'OAuth (RFC 6749 §5.2)',
      '{"error":"invalid_grant","error_description":"code expired"}',
      { code: 'invalid_grant', message: 'code expired', requestId: 'req_h' },
    ],
    ['problem+json', '{"type":"about:blank","title":"Gone","detail":"it left"}', { message: 'it left' }],
    ['message/code', '{"message":"nope","code":"E42"}', { code: 'E42', message: 'nope' }],
    [
      'errors array',
      '{"errors":[{"message":"bad field","code":"bad"}]}',
      { code: 'bad', message: 'bad field' },
    ],
    ['HTML', '<html><body><h1>502 Bad Gateway</h1></body></html>', { message: '502 Bad Gateway' }],
    ['empty', '', { message: '503 Service Unavailable' }],
    ['JSON that is not an object', '[1,2]', { message: '503 Service Unavailable' }],
  ])('%s', (_name, text, expected) => {
    const error = apiErrorFrom(503, 'Service Unavailable', { 'x-request-id': 'req_h' }, text);
    expect(error).toMatchObject(expected);
  });
});

describe('a 5xx answer to a change leaves its outcome unknown', () => {
  it.each([
    [500, false, true],
    [502, false, true],
    [503, false, true],
    [504, false, true],
    [599, false, true],
    // The answer says the request was not acted on.
    [501, false, false],
    [505, false, false],
    [511, false, false],
    // ... unless an earlier attempt's answer was lost.
    [501, true, true],
    // Not a 5xx: the answer says what happened.
    [404, true, false],
    [409, false, false],
    [429, false, false],
  ])('HTTP %i (an earlier answer lost: %s): unknown %s', (status, lost, unknown) => {
    expect(answerLeavesOutcomeUnknown(status, lost)).toBe(unknown);
  });

  it("says so with the answer's status, code and request id; exit 1", () => {
    const answer = apiErrorFrom(
      500,
      'Internal Server Error',
      { 'x-request-id': 'req_1' },
      '{"error":{"code":"internal","message":"boom"}}',
    );
    const error = new OutcomeUnknownError(answer);
    expect(answerOf(error)).toBe(answer);
    expect(answerOf(new OutcomeUnknownError(new ConnectionTimeoutError('no answer')))).toBeUndefined();
    expect(errorReport(error.withHint('run it again'))).toEqual({
      code: 'internal',
      message: 'boom, so the outcome is unknown: the platform may have made this change',
      exit_code: 1,
      hint: 'run it again',
      status: 500,
      request_id: 'req_1',
      outcome: 'unknown',
    });
  });
});
