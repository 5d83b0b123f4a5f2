import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientArming, rotationArming } from '../../api/client-reach.js';
import { OAUTH_FULL_ACCESS_SCOPE, OAUTH_SCOPES } from '../../api/constants.js';
import { scopePermissions } from '../../api/operations.js';
import {
  OAuthClientCreateBody,
  OAuthClientDeleted,
  OAuthClientList,
  OAuthClientParams,
  OAuthClientUpdateBody,
  OAuthClientWithSecret,
  RotateSecretBody,
} from '../../api/schemas/oauth.js';
import { redactUrlText } from '../../api/secret-names.js';
import { type AuditInput, auditValues } from '../domain/audit-trail.js';
import { DomainError } from '../domain/errors.js';
import { type OAuthClientRecord, publicClient } from '../domain/oauth.js';
import { clientInput, clientUpdate, requireReach } from '../domain/oauth-client-rules.js';
import type { SandboxState } from '../state.js';
import { auditChange } from './audit.js';
import { errorResponses, type RouteContext } from './context.js';

/** The rule of a client's reach (src/api/client-reach.ts clientReachRefusal), as the OpenAPI document says it. */
const REACH_RULE =
  'No one hands out more than they hold, nor for longer: a client is created only with scopes whose permissions ' +
  `(${Object.keys(OAUTH_SCOPES)
    .map((scope) =>
      scope === OAUTH_FULL_ACCESS_SCOPE
        ? `${scope}: every permission of the tenant, as tenant_admin`
        : `${scope}: ${scopePermissions([scope]).join(', ') || 'none'}`,
    )
    .join(
      '; ',
    )}) the caller holds in the tenant without an end date, as for issuing an API key: a client, its secret and its ` +
  'redirect URIs stay when a just-in-time grant ends. Else 403 insufficient_permission naming the scope and the permissions ' +
  'lacking, or those held only until some time and until when, to be done by someone who holds them without an end date. ' +
  'And the secret a creation answers is a standing credential, like an API key: creating a client, as rotating its secret and adding or changing its redirect URIs, ' +
  'takes oauth_client.manage itself held without an end date (the one rule of API keys and webhook secrets; 403 insufficient_permission naming until when), ' +
  'whatever the scopes reach (read:tenants, which reaches none, included). ' +
  'Caller: a user with their own login (a JWT, or the first-party svc-cli login), not a third-party OAuth client’s token ' +
  'acting for the user nor an API key (403 user_required, saying what would outlive the client or the key): creating, changing ' +
  'or rotating the secret of a client mints or re-points a standing credential, which would stay after the client or key it ' +
  'came through is deleted or revoked. Deleting a client stays open to them.';

const WARNING =
  'Store the client_secret now: it is shown only in this response and cannot be retrieved again (rotate it if lost).';

function withSecret(client: OAuthClientRecord, secret: string) {
  return { ...publicClient(client), client_secret: secret, warning: WARNING };
}

/**
 * A client's fields as its audit entries show them: as the API does, never the secret, and each
 * redirect URI with any credential it carries masked (redactUrlText), as a webhook's URL is there
 * (attack21b F8: a tenant_auditor, refused the client itself, read `?api_key=…` in the trail).
 */
const clientAuditFields = (client: OAuthClientRecord): Record<string, unknown> => ({
  ...structuredClone(publicClient(client)),
  redirect_uris: client.redirect_uris.map(redactUrlText),
});

function audit(
  state: SandboxState,
  request: FastifyRequest,
  client: OAuthClientRecord,
  verb: 'created' | 'updated' | 'deleted' | 'secret_rotated',
  detail: Pick<AuditInput, 'changes' | 'before' | 'after'> = {},
): void {
  const what = verb === 'secret_rotated' ? 'secret rotated' : verb;
  const changes = detail.changes ?? null;
  auditChange(state, request, {
    action: `oauth_client.${verb}`,
    target_type: 'oauth_client',
    target_id: client.client_id,
    summary: `OAuth client ${client.name} (${client.client_id}) ${what}${changes ? ` (${changes.join(', ')})` : ''}`,
    ...detail,
  });
}

export default function oauthClientRoutes(app: FastifyInstance, { state }: RouteContext): void {
  /**
   * The client `clientId` as the tenant sees it: its own, or the platform's first-party client
   * (tenant_id null), which every tenant's users log in with, so reading it finds it. A change
   * (`change`) of the first-party client is refused as what it is, not as "not found".
   */
  const clientOf = (tenantId: string, clientId: string, change = true): OAuthClientRecord => {
    const client = state.oauth.clients.get(clientId);
    if (client?.tenant_id === null) {
      if (!change) return client;
      throw new DomainError(
        'oauth_client_first_party',
        `OAuth client ${clientId} is the platform's first-party client: it is no tenant's to change, rotate or delete`,
      );
    }
    if (!client || client.tenant_id !== tenantId)
      throw new DomainError('oauth_client_not_found', `OAuth client ${clientId} not found`);
    return client;
  };

  app.post<{ Body: OAuthClientCreateBody }>(
    '/v1/oauth/clients',
    {
      config: { operation: 'oauth_clients_create' },
      schema: {
        tags: ['oauth'],
        summary: 'Create an OAuth client',
        description:
          'Permission oauth_client.manage (tenant_admin has it); idempotency key required. Required fields: name, redirect_uris, scopes (the reference does not ' +
          'say). Defaults: grant_types both, token_lifetime_seconds 3600 (60 to 86400), refresh_token_lifetime_seconds ' +
          '2592000 (300 to 31536000, at least the access token lifetime), pkce_required true. Redirect URIs: absolute, https, ' +
          'or http on a loopback host only; no fragment. The secret (svc_cs_…, 256 random bits) is returned once, with ' +
          '`warning`; only its SHA-256 is kept. Tokens of the client act only in the tenant it was created in (even with ' +
          "X-SVC-Org-Id, and whoever approved them) and only as far as the approving user's live roles and the token's scopes allow. " +
          REACH_RULE,
        body: OAuthClientCreateBody,
        response: { 201: OAuthClientWithSecret, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const input = clientInput(request.body);
      requireReach(state, request.principal!, request.tenant!.id, clientArming(null, input));
      const { client, secret } = state.oauth.createClient(
        request.tenant!.id,
        input,
        request.principal!.subject,
      );
      // Where its codes may go and what its tokens may reach: what an approval will hand out.
      const { redirect_uris, scopes, grant_types } = clientAuditFields(client);
      audit(state, request, client, 'created', { after: { redirect_uris, scopes, grant_types } });
      return reply.code(201).send(withSecret(client, secret));
    },
  );

  app.get(
    '/v1/oauth/clients',
    {
      config: { operation: 'oauth_clients_list' },
      schema: {
        tags: ['oauth'],
        summary: "List the tenant's OAuth clients",
        description: 'Never shows secrets. (Not in the reference.)',
        response: { 200: OAuthClientList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ({
      items: [...state.oauth.clients.values()]
        .filter((c) => c.tenant_id === request.tenant!.id)
        .map(publicClient),
      next_cursor: null,
    }),
  );

  app.get<{ Params: { client_id: string } }>(
    '/v1/oauth/clients/:client_id',
    {
      config: { operation: 'oauth_clients_get' },
      schema: {
        tags: ['oauth'],
        summary: 'Fetch an OAuth client',
        description:
          'Never shows the secret. (Not in the reference.) A client id the tenant does not have (another tenant’s included) is ' +
          '404 oauth_client_not_found, on every operation of /v1/oauth/clients/{client_id}: told apart from a path the platform ' +
          'does not have (404 not_found), so a client (svc login --client-id) can warn of an unknown client only when the platform says so. ' +
          'The first-party client svc-cli, which every tenant’s users log in with, is found in every tenant (tenant_id null; not in ' +
          'the list of the tenant’s clients); changing, rotating or deleting it is 403 oauth_client_first_party.',
        params: OAuthClientParams,
        response: { 200: { $ref: 'OAuthClient#' }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => publicClient(clientOf(request.tenant!.id, request.params.client_id, false)),
  );

  app.post<{ Params: { client_id: string } }>(
    '/v1/oauth/clients/:client_id/rotate-secret',
    {
      config: { operation: 'oauth_clients_rotate_secret' },
      schema: {
        tags: ['oauth'],
        summary: "Rotate an OAuth client's secret",
        description:
          'Idempotency key required. The reference shows secret_rotated_at but hides this operation ' +
          '(x-not-in-reference). The new secret is returned once with `warning`; the old one stops working at once; tokens ' +
          'already issued stay valid. secret_rotated_at becomes the rotation time. Whoever holds the secret gets the tokens approving users give the ' +
          'client, so rotating it takes every permission its scopes reach, held without an end date (403 insufficient_permission naming what is lacking, ' +
          "or until when a just-in-time grant holds it; see creating a client); and, as issuing an API key or rotating a webhook's signing secret, " +
          'oauth_client.manage itself held without an end date (the new secret is a standing credential: 403 insufficient_permission naming until when); ' +
          'and only by a user with their own login (403 user_required to an API key or a third-party client’s token: the secret would outlive them).',
        params: OAuthClientParams,
        body: RotateSecretBody,
        response: { 200: OAuthClientWithSecret, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const client = clientOf(request.tenant!.id, request.params.client_id);
      requireReach(state, request.principal!, request.tenant!.id, rotationArming(client));
      const secret = state.oauth.rotateSecret(client);
      audit(state, request, client, 'secret_rotated');
      return withSecret(client, secret);
    },
  );

  app.patch<{ Params: { client_id: string }; Body: OAuthClientUpdateBody }>(
    '/v1/oauth/clients/:client_id',
    {
      config: { operation: 'oauth_clients_update' },
      schema: {
        tags: ['oauth'],
        summary: 'Update an OAuth client',
        description:
          'Not in the reference. Any registration field (name, description, redirect_uris, grant_types, scopes, lifetimes, ' +
          'pkce_required); arrays replace. The client as changed is checked like a new one (400 with details). Redirect URIs and ' +
          "PKCE apply to authorizations started afterwards, lifetimes to tokens issued afterwards; scopes removed are gone from the client's " +
          'tokens at their next call. Writes an audit-trail entry naming the changed fields. Never returns the secret. Adding scopes takes ' +
          'every permission they reach, and adding or changing a redirect URI every permission the client’s scopes reach and oauth_client.manage itself, held without an end date (403 ' +
          'insufficient_permission naming what is lacking, or until when a just-in-time grant holds it; see creating a client); removing either, ' +
          'renaming and lifetimes take nothing more, a just-in-time holder too. ' +
          'A change of scopes or redirect URIs is said on the consent page for 7 days: which, when and by whom. ' +
          'Only users with their own login change a client (403 user_required to an API key or a third-party client’s token; see creating a client).',
        params: OAuthClientParams,
        body: OAuthClientUpdateBody,
        response: { 200: { $ref: 'OAuthClient#' }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const client = clientOf(request.tenant!.id, request.params.client_id);
      const { input, changes } = clientUpdate(client, request.body);
      requireReach(state, request.principal!, request.tenant!.id, clientArming(client, input));
      const before = clientAuditFields(client);
      state.oauth.updateClient(client, input, changes, request.principal!.subject);
      if (changes.length > 0) {
        audit(state, request, client, 'updated', {
          changes,
          ...auditValues(changes, before, clientAuditFields(client)),
        });
      }
      return publicClient(client);
    },
  );

  app.delete<{ Params: { client_id: string } }>(
    '/v1/oauth/clients/:client_id',
    {
      config: { operation: 'oauth_clients_delete' },
      schema: {
        tags: ['oauth'],
        summary: 'Delete an OAuth client',
        description:
          'Not in the reference. The client is removed: its secret stops working, its refresh tokens and unused codes are ' +
          'refused (invalid_client), and its access tokens are refused on their next call (401 invalid_token). Deleting it ' +
          'again is 404. Writes an audit-trail entry.',
        params: OAuthClientParams,
        response: { 200: OAuthClientDeleted, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const client = clientOf(request.tenant!.id, request.params.client_id);
      const deletedAt = state.oauth.deleteClient(client);
      audit(state, request, client, 'deleted');
      return { client_id: client.client_id, deleted: true as const, deleted_at: deletedAt };
    },
  );
}
