import { OAUTH_PATHS } from '../api/constants.js';
import type { StoredCredential } from '../config/store.js';
import { AuthError, SvcError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { ApiError, OutcomeUnknownError } from '../http/errors.js';
import { joinUrl } from '../http/path.js';
import { scrubSecrets } from '../http/redact.js';
import { machineTimeAtOffset } from '../platform/clock.js';
import { isPublicClient, publicClientWayOut } from './client-secret.js';
import { isoTimeOf, jwtExpiry } from './jwt.js';
import { newSessionId } from './session.js';

/**
 * What svc reads from a token response (RFC 6749 §5.1). Extra fields are kept (`raw`) and
 * otherwise ignored; a missing refresh_token means the server does not rotate it.
 */
export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in: number | undefined;
  refresh_token: string | undefined;
  scope: string | undefined;
  raw: Record<string, unknown>;
  /**
   * How far the token endpoint's clock (the issuer's: a JWT's `exp` is on it) is ahead of this
   * machine's, from its answer's Date (requestToken); undefined: not known.
   */
  issuerClockOffsetMs?: number | undefined;
}

export function tokenUrl(baseUrl: string): string {
  return joinUrl(baseUrl, OAUTH_PATHS.token).toString();
}

/** Reads a token response; anything unusable is a failure that names what is wrong (never the tokens). */
export function parseTokenResponse(data: unknown): TokenSet {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new SvcError('failure', 'the token endpoint did not answer with a JSON object');
  }
  const raw = data as Record<string, unknown>;
  const { access_token, token_type, expires_in, refresh_token, scope } = raw;
  if (typeof access_token !== 'string' || access_token === '') {
    throw new SvcError('failure', 'the token endpoint answered without an access_token');
  }
  // RFC 6749 §7.1: the type is case-insensitive; svc only knows how to send bearer tokens.
  if (typeof token_type !== 'string' || token_type.toLowerCase() !== 'bearer') {
    throw new SvcError(
      'failure',
      `the token endpoint issued a token of type ${JSON.stringify(token_type)}, not Bearer`,
    );
  }
  const seconds = typeof expires_in === 'string' ? Number(expires_in) : expires_in;
  return {
    access_token,
    token_type,
    expires_in: typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined,
    refresh_token: typeof refresh_token === 'string' && refresh_token !== '' ? refresh_token : undefined,
    scope: typeof scope === 'string' ? scope : undefined,
    raw,
  };
}

/**
 * One form-encoded POST to the token endpoint, with client_secret_post authentication when
 * there is a secret. Every credential in the form is registered as a secret for --debug.
 * `ownBusiness`: the request is svc's own (a refresh), not a change the command was asked for.
 * `signal`: the request's own (a refresh's lets it finish once sent: src/http/retry.ts finishingSent).
 */
export async function requestToken(
  api: ApiClient,
  url: string,
  form: Record<string, string | undefined>,
  options: { ownBusiness?: boolean; signal?: AbortSignal } = {},
): Promise<TokenSet> {
  const secrets = ['client_secret', 'code', 'code_verifier', 'refresh_token', 'device_code']
    .map((name) => form[name])
    .filter((v): v is string => typeof v === 'string' && v !== '');
  const { data, headers } = await api.request<unknown>({
    method: 'POST',
    path: url,
    form,
    auth: false,
    tenant: null,
    secrets,
    ...(options.ownBusiness ? { recordChange: false as const } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { ...parseTokenResponse(data), issuerClockOffsetMs: api.clockOffsetOf(headers) };
}

/** The OAuth error code of a failed token request (`invalid_grant`, …), if it was one. */
export function oauthErrorCode(error: unknown): string | undefined {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 ? error.code : undefined;
}

/**
 * The fix for a token endpoint's invalid_client (RFC 6749 §5.2), the same for every grant: a
 * confidential client sent without its secret, or a wrong client id or secret. A server that says
 * the client is unknown gets no word of a secret (attack25a F7: "supply the secret", followed,
 * changed nothing); `idFrom` says where the id came from and how to change it there. svc's own
 * public client svc-cli takes no secret from anywhere (client-secret.ts), so its hint names the
 * ways that work instead (review29a M1); `login` is the profile's login command.
 */
export function invalidClientHint(
  client: { clientId: string; clientSecret?: string | undefined; clientIdFrom?: string | undefined },
  login: string,
  error?: unknown,
): string {
  const { clientId, clientSecret, clientIdFrom: idFrom } = client;
  if (error instanceof ApiError && saysUnknownClient(error.message)) return unknownClientWords(idFrom);
  if (isPublicClient(clientId))
    return `svc sends no secret for ${clientId}, its own public client: ${publicClientWayOut(clientId, login)}`;
  return clientSecret === undefined
    ? 'a confidential client needs its secret: --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET'
    : 'check the client id and its secret (from --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET)';
}

/** A server's invalid_client that says the client id is unknown to it (not a wrong secret). */
export const saysUnknownClient = (message: string): boolean => /unknown client/i.test(message);

/** What a client id the server does not know calls for; `idFrom`: where the id came from. */
export const unknownClientWords = (idFrom?: string): string =>
  `the server does not know this client id${idFrom ? `, ${idFrom}` : ''}: check it`;

/**
 * A failed token request as an authentication failure (exit 3), its message cleaned of any
 * secret the server might have echoed. One whose answer was lost (no answer, a 5xx) is a plain
 * failure (exit 1): tokens are not a change of the user's, so no `outcome: unknown`, and the
 * hint says what to do (`hint`; a refresh says its own).
 */
export function tokenRequestFailed(what: string, error: unknown, secrets: string[], hint: string): unknown {
  if (error instanceof OutcomeUnknownError) {
    const cause = scrubSecrets(error.answer?.message ?? (error.cause as Error).message, secrets);
    // Ctrl-C once the request was sent still exits 130.
    const category = error.category === 'interrupted' ? 'interrupted' : 'failure';
    return new SvcError(category, `${what}, and whether the platform acted on it is unknown: ${cause}`, {
      code: error.code,
      hint,
      cause: error,
    });
  }
  if (!(error instanceof ApiError) || error.status >= 500 || error.status === 429) return error;
  const message = scrubSecrets(error.message, secrets);
  const code = error.code && error.code !== message ? ` (${error.code})` : '';
  return new AuthError(`${what}: ${message}${code}`, {
    code: error.code ?? 'token_request_failed',
    hint,
    cause: error,
  });
}

export interface CredentialBasis {
  clientId: string;
  clientSecret: string | undefined;
  tokenUrl: string;
  /** The scope asked for, used when the response does not say which scope was granted. */
  requestedScope?: string | undefined;
  /** The credential being refreshed: its refresh token stays when the server does not rotate it. */
  previous?: StoredCredential | undefined;
  /** The API origin the credential is for (kept from `previous` on a refresh). */
  origin?: string | undefined;
}

export function credentialFromTokens(
  tokens: TokenSet,
  basis: CredentialBasis,
  nowMs: number,
): StoredCredential {
  // Every OAuth expiry svc stores is on this machine's clock (auth status, refresh and the login's
  // words measure it from it): `expires_in` counted from receipt, else the JWT's `exp`, on the
  // issuer's clock, moved by how far that clock is off this machine's (review22d F4: kept as it
  // was, a token endpoint 3 h ahead showed a 1 h token "in 4 hours", and one 3 h behind had every
  // command refresh it). platform-api.md does not promise `expires_in`.
  const exp = tokens.expires_in === undefined ? jwtExpiry(tokens.access_token) : undefined;
  const expiresAt =
    tokens.expires_in !== undefined
      ? isoTimeOf(nowMs + tokens.expires_in * 1000)
      : exp && isoTimeOf(machineTimeAtOffset(tokens.issuerClockOffsetMs, Date.parse(exp)));
  const refreshToken = tokens.refresh_token ?? basis.previous?.refresh_token;
  const scope = tokens.scope ?? basis.previous?.scope ?? basis.requestedScope;
  const origin = basis.origin ?? basis.previous?.origin;
  // A refresh stays in its login's session; tokens without a previous credential are a new login.
  const session = basis.previous ? basis.previous.session : newSessionId();
  return {
    type: 'oauth',
    access_token: tokens.access_token,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
    ...(scope ? { scope } : {}),
    client_id: basis.clientId,
    ...(basis.clientSecret ? { client_secret: basis.clientSecret } : {}),
    token_url: basis.tokenUrl,
    ...(origin ? { origin } : {}),
    ...(session ? { session } : {}),
    obtained_at: new Date(nowMs).toISOString(),
  };
}
