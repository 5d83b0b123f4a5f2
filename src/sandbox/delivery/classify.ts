import { STATUS_CODES } from 'node:http';
import type { DeliveryFailureCause } from '../../api/constants.js';

/**
 * How a failed attempt is classified (the reference's table of delivery failure causes):
 *
 * - connection_timeout: no answer within the request timeout, or the target could not be
 *   reached at all (connection refused or reset, unknown host): "target slow or unreachable".
 * - tls_handshake_failed: the TLS handshake failed: a self-signed, expired or wrong-host
 *   certificate, an untrusted chain, or a protocol error.
 * - payload_too_large: the target answered 413.
 * - invalid_signature: the target answered 401, or any 4xx whose body contains
 *   "invalid_signature" (what `svc webhooks listen` answers for a bad signature).
 * - 4xx_client_error: any other 4xx answer.
 * - 5xx_server_error: a 5xx answer (or any status above 599).
 * - redirect_not_followed: a 3xx answer (deliveries never follow redirects); the sandbox's
 *   addition to the table.
 *
 * Only a 2xx answer is a success.
 */
export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  cause: DeliveryFailureCause | null;
  error: string | null;
  /**
   * `error` without the target's answer body (null: `error` quotes none). The body often echoes
   * the event's data, so only a caller who reads that data sees it (webhook-views.ts, shownError).
   */
  withoutBody: string | null;
}

function snippet(body: string): string {
  const text = body
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return '';
  return `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

export function classifyResponse(status: number, body: string): AttemptOutcome {
  if (status >= 200 && status < 300)
    return { ok: true, statusCode: status, cause: null, error: null, withoutBody: null };
  const answered = `the target answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
  const quoted = snippet(body);
  let cause: DeliveryFailureCause;
  if (status === 413) cause = 'payload_too_large';
  else if (status >= 400 && status < 500 && (status === 401 || body.includes('invalid_signature')))
    cause = 'invalid_signature';
  else if (status >= 400 && status < 500) cause = '4xx_client_error';
  else if (status >= 300 && status < 400) cause = 'redirect_not_followed';
  else cause = '5xx_server_error';
  return {
    ok: false,
    statusCode: status,
    cause,
    error: `${cause}: ${answered}${quoted}`,
    withoutBody: quoted === '' ? null : `${cause}: ${answered}`,
  };
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the target',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'the target closed the connection',
  UND_ERR_CLOSED: 'the connection was closed',
};

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** An attempt that got no HTTP answer. `timedOut`: the engine's own request timeout fired. */
export function classifyError(error: unknown, timedOut: boolean, timeoutMs: number): AttemptOutcome {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return {
      ok: false,
      statusCode: null,
      cause: 'connection_timeout',
      error: `connection_timeout: no answer within ${timeoutMs / 1000} s`,
      withoutBody: null,
    };
  }
  if (
    (code !== undefined &&
      (TLS_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS'))) ||
    /certificate|ssl|tls/i.test(message)
  ) {
    return {
      ok: false,
      statusCode: null,
      cause: 'tls_handshake_failed',
      error: `tls_handshake_failed: ${message}${code && !message.includes(code) ? ` (${code})` : ''}`,
      withoutBody: null,
    };
  }
  const reason = (code && REASONS[code]) ?? message;
  return {
    ok: false,
    statusCode: null,
    cause: 'connection_timeout',
    error: `connection_timeout: the target is unreachable: ${reason}${code ? ` (${code})` : ''}`,
    withoutBody: null,
  };
}
