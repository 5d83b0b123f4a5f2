import { type ClientArming, clientArmingRefusal } from '../../api/client-reach.js';
import { OAUTH_GRANT_TYPES, OAUTH_LIMITS, type OAuthGrantType } from '../../api/constants.js';
import { redirectUriProblem, repeatedRedirectUris } from '../../api/redirect-uris.js';
import type { OAuthClientCreateBody, OAuthClientUpdateBody } from '../../api/schemas/oauth.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { heldGrants } from './authorization.js';
import { badRequest, DomainError } from './errors.js';
import type { OAuthClientRecord } from './oauth.js';

/**
 * The rules of an OAuth client's registration, for creation and update alike: redirect URIs
 * (which may be registered: src/api/redirect-uris.ts; how one matches at authorization time),
 * grant types, lifetimes; and who may arm a client with what its scopes reach (requireReach).
 */

export interface ClientInput {
  name: string;
  description: string;
  redirect_uris: string[];
  grant_types: OAuthGrantType[];
  scopes: string[];
  token_lifetime_seconds: number;
  refresh_token_lifetime_seconds: number;
  pkce_required: boolean;
}

/**
 * A client as a creation request describes it, with the defaults filled in and the rules the
 * schema cannot say checked (checkClient).
 */
export function clientInput(body: OAuthClientCreateBody): ClientInput {
  return checkClient({
    name: body.name,
    description: body.description ?? '',
    redirect_uris: body.redirect_uris,
    grant_types: (body.grant_types ?? [...OAUTH_GRANT_TYPES]) as OAuthGrantType[],
    scopes: body.scopes,
    token_lifetime_seconds: body.token_lifetime_seconds ?? OAUTH_LIMITS.tokenLifetime.default,
    refresh_token_lifetime_seconds:
      body.refresh_token_lifetime_seconds ?? OAUTH_LIMITS.refreshTokenLifetime.default,
    pkce_required: body.pkce_required ?? true,
  });
}

/**
 * A client as an update leaves it: its fields with the update's on top, checked whole by the
 * same rules as a new client; `changes` names the fields whose value differs.
 */
export function clientUpdate(
  client: OAuthClientRecord,
  body: OAuthClientUpdateBody,
): { input: ClientInput; changes: string[] } {
  const current: ClientInput = {
    name: client.name,
    description: client.description,
    redirect_uris: client.redirect_uris,
    grant_types: client.grant_types as OAuthGrantType[],
    scopes: client.scopes,
    token_lifetime_seconds: client.token_lifetime_seconds,
    refresh_token_lifetime_seconds: client.refresh_token_lifetime_seconds,
    pkce_required: client.pkce_required,
  };
  const defined = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  const input = checkClient({ ...current, ...defined } as ClientInput);
  const changes = (Object.keys(current) as Array<keyof ClientInput>).filter(
    (k) => JSON.stringify(current[k]) !== JSON.stringify(input[k]),
  );
  return { input, changes };
}

/**
 * The rules the schema cannot say: redirect URIs (absolute, https or loopback http, no
 * fragment, no wildcard, each once as WHATWG URL writes it), refresh_token only with authorization_code, a refresh token that outlives its
 * access token.
 */
function checkClient(input: ClientInput): ClientInput {
  const details = input.redirect_uris.flatMap((uri, i) => {
    const problem = redirectUriProblem(uri);
    return problem ? [{ field: `redirect_uris.${i}`, message: `${JSON.stringify(uri)} ${problem}` }] : [];
  });
  for (const [i, problem] of repeatedRedirectUris(input.redirect_uris)) {
    details.push({
      field: `redirect_uris.${i}`,
      message: `${JSON.stringify(input.redirect_uris[i])} ${problem}`,
    });
  }
  if (!input.grant_types.includes('authorization_code')) {
    details.push({ field: 'grant_types', message: 'refresh_token needs authorization_code' });
  }
  if (input.refresh_token_lifetime_seconds < input.token_lifetime_seconds) {
    details.push({
      field: 'refresh_token_lifetime_seconds',
      message: 'must be at least token_lifetime_seconds',
    });
  }
  if (details.length > 0) throw badRequest(`${details[0]!.field} ${details[0]!.message}`, details);
  return input;
}

/**
 * No one hands out more than they hold, nor for longer (src/api/client-reach.ts, clientArmingRefusal): 403
 * insufficient_permission unless the caller holds in the tenant, without an end date (a client and
 * its secret outlast a just-in-time grant), every permission the scopes of each arming reach — a
 * creation or an update (`clientArming(before, after)`: every scope of a new client, scopes added,
 * all scopes on a new redirect URI) or a secret rotation (`rotationArming`: all scopes) — and, for
 * one that hands out or re-points the client's secret (a creation, a new redirect URI, a rotation),
 * oauth_client.manage itself so held: the one rule of API keys and webhook secrets (standingRefusal).
 */
export function requireReach(
  state: SandboxState,
  principal: Principal,
  tenantId: string,
  armings: readonly ClientArming[],
): void {
  const refusal = clientArmingRefusal(heldGrants(state, principal, tenantId), armings);
  if (refusal !== undefined) throw new DomainError('insufficient_permission', refusal);
}
