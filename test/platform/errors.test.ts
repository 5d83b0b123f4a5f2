import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { categoryForStatus } from '../../src/errors.js';
import { ApiError } from '../../src/http/errors.js';
import { retyped, TYPED_ERROR_CODES, typedError } from '../../src/platform/errors.js';

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
});
