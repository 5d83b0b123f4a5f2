import type { ERROR_CODES } from '../problem.js';

export type ErrorCode = keyof typeof ERROR_CODES;
export interface ErrorDetail {
  field: string;
  message: string;
  [extra: string]: unknown;
}

/**
 * A rule of the platform said no. Domain code (stores, grants, authorization) throws these with
 * a documented code; the error plugin (plugins/errors.ts) alone turns the code into an HTTP
 * status through ERROR_CODES, so no rule knows about HTTP.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) =>
  new DomainError('invalid_request', message, details);
export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
export const forbidden = (code: ErrorCode, message: string) => new DomainError(code, message);
export const conflict = (message: string, code: ErrorCode = 'conflict') => new DomainError(code, message);
