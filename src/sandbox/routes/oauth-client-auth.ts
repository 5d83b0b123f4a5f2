import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';
import type { OAuthClientRecord } from '../domain/oauth.js';
import { FORM_BODY_LIMIT, type FormBody } from '../plugins/form.js';
import { ApiProblem } from '../problem.js';
import type { RouteContext } from './context.js';

/**
 * What the OAuth endpoints that clients call directly (token, RFC 6749; revocation, RFC 7009)
 * share: client authentication, form parameters, and errors in the RFC 6749 §5.2 shape rather
 * than the sandbox's error body.
 */

/** An RFC 6749 §5.2 error: `{"error","error_description"}`, 400 unless said otherwise. */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(error: string, description: string, status = 400, headers: Record<string, string> = {}) {
    super(description);
    this.error = error;
    this.status = status;
    this.headers = headers;
  }
}

/**
 * The route options every form-encoded OAuth endpoint shares (token, revocation, device
 * authorization): its own validation, errors in the RFC 6749 §5.2 shape, no idempotency replay.
 */
export function oauthFormEndpoint(operation: string) {
  return {
    config: { operation, idempotent: false },
    attachValidation: true,
    errorHandler: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) =>
      sendOAuthError(reply, toOAuthError(error)),
  };
}

export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

export function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return reply
    .code(error.status)
    .headers({ ...NO_STORE, ...error.headers })
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: error.error, error_description: error.message }));
}

/** Any failure on this route — a parser error, an injected fault — answered in the RFC 6749 shape. */
export function toOAuthError(error: FastifyError | ApiProblem | DomainError | OAuthError): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof DomainError) return toOAuthError(ApiProblem.of(error));
  if (error instanceof ApiProblem) {
    const code =
      error.status >= 500
        ? 'temporarily_unavailable'
        : error.status === 429
          ? 'slow_down'
          : 'invalid_request';
    return new OAuthError(code, error.message, error.status, error.headers);
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) return new OAuthError('server_error', 'internal error in the sandbox', 500);
  if (status === 413) {
    const limit = `${FORM_BODY_LIMIT / 1024} KiB`;
    return new OAuthError('invalid_request', `the body is larger than ${limit}; send less per request`, 413);
  }
  if (status === 415)
    return new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded', 415);
  return new OAuthError('invalid_request', error.message, status);
}

/** One value of a form parameter; a repeated parameter is an error (RFC 6749 §3.2). */
export function param(body: FormBody, name: string): string | undefined {
  const value = body[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `parameter ${name} is repeated`);
  return value === undefined || value === '' ? undefined : value;
}

interface BasicCredentials {
  id: string;
  secret: string;
}

function basicCredentials(header: string | undefined): BasicCredentials | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  const challenge = { 'www-authenticate': 'Basic realm="svc sandbox"' };
  if (!match) {
    throw new OAuthError(
      'invalid_client',
      'Authorization must be HTTP Basic with the client credentials',
      401,
      challenge,
    );
  }
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) throw new OAuthError('invalid_client', 'malformed Basic credentials', 401, challenge);
  // RFC 6749 §2.3.1: both parts are form-urlencoded before they are joined.
  const unform = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
  try {
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'malformed Basic credentials', 401, challenge);
  }
}

/**
 * Client authentication: client_secret_basic or client_secret_post (never both), or a public
 * client identified by client_id alone (the first-party CLI, which proves itself with PKCE); a
 * secret sent for a public client is invalid_client.
 */
export function authenticateClient(
  ctx: RouteContext,
  request: FastifyRequest,
  body: FormBody,
): OAuthClientRecord {
  const basic = basicCredentials(request.headers.authorization);
  const bodyId = param(body, 'client_id');
  const bodySecret = param(body, 'client_secret');
  if (basic && bodySecret !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'use one client authentication method, not Basic and client_secret',
    );
  }
  if (basic && bodyId !== undefined && bodyId !== basic.id) {
    throw new OAuthError('invalid_request', 'client_id differs from the client of the Basic credentials');
  }
  const id = basic?.id ?? bodyId;
  const challenge: Record<string, string> = basic ? { 'www-authenticate': 'Basic realm="svc sandbox"' } : {};
  if (id === undefined) throw new OAuthError('invalid_client', 'client_id is required', 401, challenge);
  const client = ctx.state.oauth.clients.get(id);
  if (!client) throw new OAuthError('invalid_client', 'unknown client', 401, challenge);
  // A public client has no secret: one sent is a misconfigured integration, told so (RFC 6749 §2.3).
  if (client.secretHash === null && (basic || bodySecret !== undefined)) {
    throw new OAuthError(
      'invalid_client',
      `${client.client_id} is a public client and has no secret: send its client_id alone (it proves itself with PKCE)`,
      401,
      challenge,
    );
  }
  if (client.secretHash !== null) {
    const secret = basic?.secret ?? bodySecret;
    if (secret === undefined) {
      throw new OAuthError(
        'invalid_client',
        'this client must authenticate with its client_secret',
        401,
        challenge,
      );
    }
    if (!ctx.state.oauth.secretMatches(client, secret)) {
      throw new OAuthError('invalid_client', 'client authentication failed', 401, challenge);
    }
  }
  return client;
}

/** The body of a form-encoded request, refusing other content types and repeated parameters. */
export function formBody(request: FastifyRequest): FormBody {
  if (!request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded');
  }
  const body: FormBody = request.body && typeof request.body === 'object' ? (request.body as FormBody) : {};
  const repeated = Object.entries(body).find(([, value]) => Array.isArray(value));
  if (repeated) throw new OAuthError('invalid_request', `parameter ${repeated[0]} is repeated`);
  return body;
}
