import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { ApiProblem } from '../problem.js';
import { FORM_BODY_LIMIT } from './form.js';
import { BODY_LIMIT } from './json-body.js';
import { errorBodyText } from './shared.js';
import { knownQueryText } from './strict-query.js';

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

/** Fastify's router's default route parameter limit (maxParamLength). */
const MAX_PARAM_LENGTH = 100;

/**
 * The errors Fastify's router raises before any route or hook runs (Fastify's `frameworkErrors`
 * option), which it would otherwise answer in its own shape without X-Request-Id: a path that is
 * not valid percent-encoding is a bad request; a path segment over 100 characters is longer
 * than any id, so nothing is there (what a production platform answers for an id it never
 * issued), rather than Fastify's 414.
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  const path = request.url.split('?')[0]!;
  const problem =
    error.code === 'FST_ERR_BAD_URL'
      ? new ApiProblem(400, 'invalid_request', `the path ${path} is not valid percent-encoding`)
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiProblem(
            404,
            'not_found',
            `no route ${request.method} ${path}: a path segment is longer than ${MAX_PARAM_LENGTH} characters, longer than any id`,
          )
        : new ApiProblem(500, 'internal_error', 'internal error in the sandbox');
  sendProblem(reply, request, problem);
}

/**
 * What Node's HTTP parser refuses before Fastify sees a request (Fastify's `clientErrorHandler`
 * option): written to the socket in the error shape, with a request id of its own.
 */
export function clientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'the request headers are larger than 16 KiB']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'the request did not arrive in time']
        : [400, 'invalid_request', 'the request is not valid HTTP/1.1'];
  const id = newRequestId();
  const body = errorBodyText(id, code, message);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${id}\r\nconnection: close\r\n\r\n${body}`,
  );
}

type AjvError = { instancePath?: string; message?: string; params?: Record<string, unknown> };

function validationDetails(
  error: FastifyError,
  request: FastifyRequest,
): Array<{ field: string; message: string }> {
  const where = (error as FastifyError & { validationContext?: string }).validationContext;
  return ((error.validation ?? []) as AjvError[]).map((v) => {
    const unknown = v.params?.additionalProperty;
    if (where === 'querystring' && typeof unknown === 'string') {
      const known = knownQueryText(request.routeOptions.schema?.querystring);
      return { field: unknown, message: `is an unknown query parameter; ${known}` };
    }
    const missing = typeof v.params?.missingProperty === 'string' ? `/${v.params.missingProperty}` : '';
    const extra = typeof v.params?.additionalProperty === 'string' ? `/${v.params.additionalProperty}` : '';
    const path = `${v.instancePath ?? ''}${missing}${extra}`.replace(/^\//, '').replace(/\//g, '.');
    const allowed = Array.isArray(v.params?.allowedValues) ? `: ${v.params.allowedValues.join(', ')}` : '';
    return {
      field: path || where || 'request',
      // Ajv's "must have required property 'x'" after the field's own name would say it twice.
      message: `${extra ? 'unknown field' : missing ? 'is required' : (v.message ?? 'is invalid')}${allowed}`,
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
  app.setErrorHandler((error: FastifyError | DomainError | ApiProblem, request, reply) => {
    if (error instanceof ApiProblem) return sendProblem(reply, request, error);
    if (error instanceof DomainError) return sendProblem(reply, request, ApiProblem.of(error));
    if (error.validation) {
      const details = validationDetails(error, request);
      const first = details[0];
      const message = first ? `${first.field} ${first.message}` : 'invalid request';
      return sendProblem(reply, request, new ApiProblem(400, 'invalid_request', message, { details }));
    }
    const status = error.statusCode ?? 500;
    if (status === 413) {
      const length = Number(request.headers['content-length']);
      const size = Number.isInteger(length) && length > 0 ? ` (${length} bytes)` : '';
      const form = (request.headers['content-type'] ?? '').toLowerCase().includes('form-urlencoded');
      const limit = form ? `${FORM_BODY_LIMIT / 1024} KiB` : `${BODY_LIMIT / (1024 * 1024)} MiB`;
      const message = `the body is larger than ${limit}${size}; send less per request`;
      return sendProblem(reply, request, new ApiProblem(413, 'payload_too_large', message));
    }
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
