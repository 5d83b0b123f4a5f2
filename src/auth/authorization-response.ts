import { AuthError, type SvcErrorOptions } from '../errors.js';
import { sameSecret } from './pkce.js';

/**
 * Reading an authorization response (RFC 6749 §4.1.2) — the query of the redirect — the same way
 * whether the browser brought it to the loopback port or the user pasted the address the browser
 * ended on: the state must be this login's (else it is not this login's response, possibly a
 * forgery), the issuer one of this server's (RFC 9207), then an error or a code.
 */
export type AuthorizationResponse =
  /** Not this login's response (no or another state): turned away, the wait goes on. */
  | { kind: 'stray'; reason: string }
  | { kind: 'code'; code: string }
  /**
   * This login's response, and it ends the login with a failure. `unchecked`: an error response
   * without `iss`, whose page waits until the caller knows whether the server promises `iss`
   * (until then the server's error is not known to be this server's: review28e L4).
   */
  | { kind: 'failure'; error: AuthError; page: string; unchecked?: boolean };

/**
 * The server's `error` in the redirect (RFC 6749 §4.1.2.1): svc's own code says what happened
 * (`authorization_denied`, `authorization_error`), and the server's word goes beside it, never in
 * its place (`--json` server_code), so it cannot read as one of svc's codes (`login_timeout`).
 */
export class AuthorizationRefusedError extends AuthError {
  readonly serverCode: string;
  constructor(message: string, serverCode: string, options: SvcErrorOptions = {}) {
    super(message, options);
    this.serverCode = serverCode;
  }
}

/**
 * The server's refusal of an authorization, by its `error` (a redirect's, RFC 6749 §4.1.2.1; a
 * device login's token answer, RFC 8628 §3.5): one rule for every way svc logs in.
 */
export function authorizationRefused(error: string, description?: string | null): AuthorizationRefusedError {
  const denied = error === 'access_denied';
  return new AuthorizationRefusedError(
    `${denied ? 'authorization was denied' : 'authorization failed'}: ${error}${description ? ` (${description})` : ''}`,
    error,
    {
      code: denied ? 'authorization_denied' : 'authorization_error',
      hint: denied ? 'run the login again and choose Approve' : undefined,
    },
  );
}

export interface ExpectedResponse {
  state: string;
  /** Issuer identifiers an `iss` parameter may carry. */
  issuers: string[];
  /**
   * Told of a response that came without `iss` — its code, or its error (RFC 9207 §2.4 covers
   * error responses too; review28e L4) — while whether the server promises `iss` is not known
   * yet (the login reads its metadata alongside the wait: flow.ts), so the caller refuses it then.
   */
  noIssuer?: (response: string | AuthError) => void;
}

/** A response without `iss` from a server that promises one (RFC 9207 §2.4): the failure. */
export function issuerMissing(): { error: AuthError; page: string } {
  return {
    error: new AuthError(
      'the authorization response has no iss, though this server says it always sends one (authorization_response_iss_parameter_supported): it may come from another server',
      {
        code: 'issuer_missing',
        hint: 'run the login again, and open only the URL svc printed (RFC 9207 mix-up protection)',
      },
    ),
    page: 'The response does not say which authorization server sent it.',
  };
}

/** What the browser's page says of the server's `error` once svc takes it as this server's. */
export function refusalPage(error: string): string {
  return error === 'access_denied' ? 'You denied the request.' : `The server answered ${error}.`;
}

function normalizeIssuer(value: string): string {
  return value.replace(/\/+$/, '');
}

export function readAuthorizationResponse(
  params: URLSearchParams,
  expected: ExpectedResponse,
): AuthorizationResponse {
  const state = params.get('state');
  if (
    state === null ||
    state === '' ||
    params.getAll('state').length !== 1 ||
    !sameSecret(state, expected.state)
  ) {
    return {
      kind: 'stray',
      reason:
        state === null || state === ''
          ? 'a response without a state was turned away'
          : 'a response with the wrong state was turned away (possible cross-site request forgery)',
    };
  }
  const iss = params.get('iss');
  if (iss !== null && !expected.issuers.map(normalizeIssuer).includes(normalizeIssuer(iss))) {
    return {
      kind: 'failure',
      error: new AuthError(
        `the authorization response comes from issuer ${JSON.stringify(iss)}, not from this server`,
        {
          code: 'issuer_mismatch',
          hint: 'check --app-url and --base-url (RFC 9207 mix-up protection)',
        },
      ),
      page: 'The response comes from another authorization server.',
    };
  }
  const error = params.get('error');
  if (error !== null) {
    const refused = authorizationRefused(error, params.get('error_description'));
    const unchecked = iss === null && expected.noIssuer !== undefined;
    if (iss === null) expected.noIssuer?.(refused);
    return { kind: 'failure', error: refused, page: refusalPage(error), ...(unchecked ? { unchecked } : {}) };
  }
  const code = params.get('code');
  if (code === null || code === '') {
    return {
      kind: 'failure',
      error: new AuthError('the authorization response has neither a code nor an error', {
        code: 'code_missing',
      }),
      page: 'The response has no authorization code.',
    };
  }
  if (iss === null) expected.noIssuer?.(code);
  return { kind: 'code', code };
}
