import { randomBytes } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OPERATIONS } from '../../api/operations.js';
import { didYouMean } from '../../api/suggest.js';
import { DomainError } from '../domain/errors.js';
import { ApiProblem } from '../problem.js';
import { errorBodyText } from './shared.js';

/** The first segments of every path under /v1 (`/v1/tenants`, …), to suggest one for a typo. */
const V1_ROOTS = [
  ...new Set(Object.values(OPERATIONS).map((rule) => rule.path.split('/').slice(0, 3).join('/'))),
];

function notFoundMessage(method: string, path: string): string {
  const root = path.split('/').slice(0, 3).join('/');
  const hint = path.startsWith('/v1/') && !V1_ROOTS.includes(root) ? didYouMean(root, V1_ROOTS) : '';
  return `no route ${method} ${path}${hint}`;
}

export function newRequestId(): string {
  return `req_${randomBytes(10).toString('hex')}`;
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, problem: ApiProblem): FastifyReply {
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type('application/json; charset=utf-8')
    .send(errorBodyText(request.id, problem.code, problem.message, problem.details));
}

type AjvError = { instancePath?: string; message?: string; params?: Record<string, unknown> };

function validationDetails(error: FastifyError): Array<{ field: string; message: string }> {
  const where = (error as FastifyError & { validationContext?: string }).validationContext;
  return ((error.validation ?? []) as AjvError[]).map((v) => {
    const missing = typeof v.params?.missingProperty === 'string' ? `/${v.params.missingProperty}` : '';
    const extra = typeof v.params?.additionalProperty === 'string' ? `/${v.params.additionalProperty}` : '';
    const path = `${v.instancePath ?? ''}${missing}${extra}`.replace(/^\//, '').replace(/\//g, '.');
    const allowed = Array.isArray(v.params?.allowedValues) ? `: ${v.params.allowedValues.join(', ')}` : '';
    return {
      field: path || where || 'request',
      message: `${extra ? 'unknown field' : (v.message ?? 'is invalid')}${allowed}`,
    };
  });
}

/**
 * Every response carries X-Request-Id; every error has the body
 * `{"error":{"code","message","request_id","details"}}`.
 */
export function registerErrorHandling(app: FastifyInstance, log: (line: string) => void): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      request,
      new ApiProblem(404, 'not_found', notFoundMessage(request.method, request.url.split('?')[0]!)),
    ),
  );
  app.setErrorHandler((error: FastifyError | DomainError | ApiProblem, request, reply) => {
    if (error instanceof ApiProblem) return sendProblem(reply, request, error);
    if (error instanceof DomainError) return sendProblem(reply, request, ApiProblem.of(error));
    if (error.validation) {
      const details = validationDetails(error);
      const first = details[0];
      const message = first ? `${first.field} ${first.message}` : 'invalid request';
      return sendProblem(reply, request, new ApiProblem(400, 'invalid_request', message, { details }));
    }
    const status = error.statusCode ?? 500;
    if (status < 500) {
      const code =
        status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request';
      return sendProblem(reply, request, new ApiProblem(status, code, error.message));
    }
    log(`sandbox: internal error on ${request.method} ${request.url}: ${error.stack ?? error.message}`);
    return sendProblem(
      reply,
      request,
      new ApiProblem(500, 'internal_error', 'internal error in the sandbox'),
    );
  });
}
