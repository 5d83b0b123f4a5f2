import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { definiteRefusal } from '../../src/bulk/judge.js';
import { categoryForStatus } from '../../src/errors.js';
import { ApiError } from '../../src/http/errors.js';
import {
  IdempotencyInProgressError,
  retyped,
  TYPED_ERROR_CODES,
  typedError,
} from '../../src/platform/errors.js';

const published = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'))[
  'x-error-codes'
] as Record<string, { status: number }>;

describe('typed API errors', () => {
  it.each(Object.entries(TYPED_ERROR_CODES))(
    '%s is a code the platform publishes, with its status',
    (code, typed) => {
      expect(published[code]?.status).toBe(typed.status);
    },
  );

  it.each(Object.entries(TYPED_ERROR_CODES))('%s keeps the exit code of its status', (code, typed) => {
    const error = typedError(new ApiError({ status: typed.status, code, message: 'm', requestId: 'r' }));
    expect(error).toBeInstanceOf(typed.type);
    expect((error as ApiError).category).toBe(categoryForStatus(typed.status));
    expect((error as ApiError).requestId).toBe('r');
  });

  // Stripe's code for idempotency_request_in_progress, which other servers of the API answer: the
  // same typed error as the platform's own (the HTTP client waits for both), not a plain conflict.
  it.each(['idempotency_request_in_progress', 'idempotency_key_in_use'])(
    '409 %s is an IdempotencyInProgressError, no definite refusal; another status keeps its class',
    (code) => {
      const error = typedError(new ApiError({ status: 409, code, message: 'm', requestId: 'r' }));
      expect(error).toBeInstanceOf(IdempotencyInProgressError);
      expect(definiteRefusal(error)).toBe(false);
      expect(typedError(new ApiError({ status: 400, code, message: 'm' }))).not.toBeInstanceOf(
        IdempotencyInProgressError,
      );
    },
  );

  it('keeps everything of the error it retypes, and may add a hint', () => {
    const original = new ApiError(
      {
        status: 409,
        code: 'assignment_exists',
        message: 'held',
        requestId: 'req_1',
        details: [{ a: 1 }],
        body: { x: 1 },
      },
      { hint: 'old hint' },
    );
    const [Type] = [TYPED_ERROR_CODES.assignment_exists!.type];
    const again = retyped(original, Type, 'new hint');
    expect(again).toMatchObject({
      status: 409,
      code: 'assignment_exists',
      message: 'held',
      requestId: 'req_1',
      hint: 'new hint',
    });
    expect(again.details).toEqual([{ a: 1 }]);
    expect(retyped(original, Type).hint).toBe('old hint');
    expect(typedError('not an api error')).toBe('not an api error');
  });

  // Review s8 (review-a 1, 2): the fix of a 403 must be one that works. With SVC_TOKEN set, naming
  // a profile changes nothing; a platform message that says what to use already is not told to ask.
  it.each([
    [
      'which your live roles there (tenant_viewer) do not grant; ask a tenant_admin of t for a role that grants it',
      undefined,
      'another credential that holds it works too: use a profile whose login holds it (svc -p PROFILE …)',
    ],
    [
      "which this API key's role (tenant_viewer, fixed by its kind) does not grant; use a service-role key or a user's login",
      'set SVC_TOKEN to a credential that holds it',
      'another credential that holds it works too: set SVC_TOKEN to a credential that holds it',
    ],
    [
      'forbidden',
      'set SVC_TOKEN to a credential that holds it',
      'ask a tenant administrator for a role that grants it, or set SVC_TOKEN to a credential that holds it',
    ],
  ])('a 403 insufficient_role (%s) gets the fix of the credential in use', (message, other, hint) => {
    const error = new ApiError({ status: 403, code: 'insufficient_role', message, requestId: 'r' });
    expect((typedError(error, undefined, other) as ApiError).hint).toBe(hint);
  });
});
