import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { DEVICE_CODE_GRANT, OAUTH_LIMITS, OAUTH_PATHS } from '../../api/constants.js';
import {
  DeviceAuthorizationRequest,
  DeviceAuthorizationResponse,
  OAuthErrorBody,
} from '../../api/schemas/oauth.js';
import { auditClientGrant } from '../domain/audit-trail.js';
import { mayUseGrant } from '../domain/oauth.js';
import type { FormBody } from '../plugins/form.js';
import type { RouteContext } from './context.js';
import {
  authenticateClient,
  formBody,
  NO_STORE,
  OAuthError,
  oauthFormEndpoint,
  param,
  sendOAuthError,
  toOAuthError,
} from './oauth-client-auth.js';
import { ConsentForm, eligibleUsers, sendConsent, userOrConsentAgain } from './oauth-consent.js';
import { escapeHtml, PAGE_HEADERS, sendPage, userCodePage } from './oauth-pages.js';

/**
 * The device authorization grant (RFC 8628), for a terminal that cannot receive a browser's
 * redirect (svc over SSH): the device asks for a device code and a user code, the user types the
 * user code on the verification page in any browser and approves on the consent page, and the
 * device polls the token endpoint (oauth-token.ts) until then. Only a client registered for it
 * (mayUseGrant: svc-cli alone) may use it: the user approves on the same consent page.
 */
export default function oauthDeviceRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { state } = ctx;
  const browser = { auth: 'public', faultFree: true, idempotent: false } as const;
  const verificationUri = () => `${ctx.baseUrl()}${OAUTH_PATHS.deviceVerification}`;

  app.post<{ Body: FormBody }>(
    OAUTH_PATHS.deviceAuthorization,
    {
      ...oauthFormEndpoint('oauth_device_authorization'),
      schema: {
        tags: ['oauth'],
        summary: 'Device authorization request (RFC 8628)',
        description:
          'Form-encoded; the client authenticates as at the token endpoint (client_id alone for the public first-party ' +
          `client). Answers a device_code (polled at the token endpoint with grant_type=${DEVICE_CODE_GRANT}), a user_code ` +
          `(8 consonants, XXXX-XXXX), the verification page {app_url}${OAUTH_PATHS.deviceVerification} (and the same page with ` +
          `the code filled in), expires_in (${OAUTH_LIMITS.deviceCodeLifetimeSeconds} s) and interval ` +
          `(${OAUTH_LIMITS.deviceIntervalSeconds} s; sandbox choice, RFC 8628 says 5 when absent). scope: default every scope ` +
          'of the client; a scope outside them is invalid_scope. Errors in the RFC 6749 §5.2 shape. Offered only to a client ' +
          `registered for ${DEVICE_CODE_GRANT}, which is the first-party svc-cli alone: a tenant's clients register the ` +
          "reference's grant types (authorization_code, refresh_token) and cannot register it, so their redirect URIs and " +
          'PKCE are never stepped around (unauthorized_client, RFC 6749 §5.2 / RFC 8628). No idempotency key: every request ' +
          'starts a new authorization.',
        consumes: ['application/x-www-form-urlencoded'],
        body: DeviceAuthorizationRequest,
        response: { 200: DeviceAuthorizationResponse, 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      try {
        const body = formBody(request);
        const client = authenticateClient(ctx, request, body);
        if (!mayUseGrant(client, DEVICE_CODE_GRANT)) {
          throw new OAuthError(
            'unauthorized_client',
            `this client is not registered for the device authorization grant (${DEVICE_CODE_GRANT}): use the authorization code grant it is registered for`,
          );
        }
        const scope = param(body, 'scope');
        const scopes = scope === undefined ? client.scopes : [...new Set(scope.split(' ').filter(Boolean))];
        const refused = scopes.filter((s) => !client.scopes.includes(s));
        if (scopes.length === 0 || refused.length > 0) {
          throw new OAuthError(
            'invalid_scope',
            refused.length > 0
              ? `scope ${refused.join(' ')} is not allowed for this client`
              : 'no scope requested',
          );
        }
        const { deviceCode, record } = state.oauth.devices.start(client.client_id, scopes);
        const uri = verificationUri();
        return reply
          .code(200)
          .headers(NO_STORE)
          .send({
            device_code: deviceCode,
            user_code: record.userCode,
            verification_uri: uri,
            verification_uri_complete: `${uri}?user_code=${record.userCode}`,
            expires_in: OAUTH_LIMITS.deviceCodeLifetimeSeconds,
            interval: record.intervalSeconds,
          });
      } catch (error) {
        return sendOAuthError(reply, toOAuthError(error as OAuthError));
      }
    },
  );

  app.get<{ Querystring: { user_code?: string } }>(
    OAUTH_PATHS.deviceVerification,
    {
      config: { ...browser, operation: 'oauth_device_verification_start' },
      attachValidation: true,
      schema: {
        tags: ['oauth'],
        summary: 'Device verification page (RFC 8628 §3.3; served at {app_url})',
        description:
          'A browser page. Without user_code: a form to type the code. With a user_code of a pending authorization (case, ' +
          'spaces and dashes do not matter): the consent page for its client and scopes, which posts Approve or Deny to this ' +
          'path. An unknown, expired or answered code shows the form again with what is wrong (400). RFC 8628 §5.1: after ' +
          `${OAUTH_LIMITS.deviceUserCodeMissesPerMinute} wrong codes within a minute, no code is looked up until that minute is ` +
          'over: 429 with Retry-After and the form saying when to try again (sandbox choice).',
        querystring: Type.Object({ user_code: Type.Optional(Type.String()) }, { additionalProperties: true }),
        produces: ['text/html'],
        response: {
          200: { description: 'The code form, or the consent page (HTML)', type: 'string' },
          400: { description: 'The code form with what is wrong (HTML)', type: 'string' },
          429: {
            description: 'Too many wrong codes in the last minute: the form, saying when to try again (HTML)',
            type: 'string',
            headers: {
              'Retry-After': { type: 'integer', description: 'Seconds until codes are looked up again' },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const typed = typeof request.query.user_code === 'string' ? request.query.user_code : undefined;
      if (typed === undefined || typed.trim() === '') {
        return reply.code(200).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(userCodePage());
      }
      const lockedFor = state.oauth.devices.lockedForSeconds();
      if (lockedFor > 0) {
        return reply
          .code(429)
          .headers({ ...PAGE_HEADERS, 'retry-after': String(lockedFor) })
          .type('text/html; charset=utf-8')
          .send(
            userCodePage(
              `Too many wrong codes were typed in the last minute. Try again in ${lockedFor} seconds.`,
              typed,
            ),
          );
      }
      const pending = state.oauth.devices.pending(typed);
      const client = pending ? state.oauth.clients.get(pending.record.clientId) : undefined;
      if (!pending || !client) {
        return reply
          .code(400)
          .headers(PAGE_HEADERS)
          .type('text/html; charset=utf-8')
          .send(
            userCodePage(
              'That code is not one waiting for approval: check it, or start again on your device (codes expire after 10 minutes).',
              typed,
            ),
          );
      }
      const ticketData = {
        clientId: client.client_id,
        redirectUri: '',
        scopes: pending.record.scopes,
        state: null,
        challenge: null,
        deviceKey: pending.key,
      };
      return sendConsent(reply, ctx, client, {
        ticket: state.oauth.openTicket(ticketData),
        ticketData,
        users: eligibleUsers(ctx, client),
        outcome: { text: 'Approving signs in the device that shows the code', code: pending.record.userCode },
      });
    },
  );

  app.post<{ Body: FormBody }>(
    OAUTH_PATHS.deviceVerification,
    {
      config: { ...browser, operation: 'oauth_device_verification_decide' },
      attachValidation: true,
      schema: {
        tags: ['oauth'],
        summary: 'The device consent form: approve or deny (browser traffic)',
        description:
          'Posted by the consent page of a device authorization: ticket, user_id (an id or an email), decision=approve|deny. ' +
          'The answer is a page saying the device is connected (or was refused); the device learns it at its next poll.',
        consumes: ['application/x-www-form-urlencoded'],
        body: ConsentForm,
        produces: ['text/html'],
        response: {
          200: {
            description: 'Done (HTML), or the consent page again for a user who may not sign in',
            type: 'string',
          },
          400: { description: 'An expired or answered request (HTML)', type: 'string' },
        },
      },
    },
    async (request, reply) => {
      const body: FormBody = request.body && typeof request.body === 'object' ? request.body : {};
      const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
      const ticketId = field('ticket');
      const ticket = ticketId ? state.oauth.takeTicket(ticketId) : undefined;
      const device = ticket?.deviceKey ? state.oauth.devices.byKey(ticket.deviceKey) : undefined;
      const client = ticket ? state.oauth.clients.get(ticket.clientId) : undefined;
      if (
        !ticket ||
        !device ||
        !client ||
        device.decision !== null ||
        device.expiresAtMs <= state.clock.now()
      ) {
        return sendPage(
          reply,
          400,
          'This request has expired',
          '<h1>This request has expired</h1><div class="box error"><p>The code was already answered or is too old. ' +
            'Start again on your device.</p></div>',
        );
      }
      if (field('decision') !== 'approve') {
        device.decision = { approved: false };
        return sendPage(
          reply,
          200,
          'Request denied',
          `<h1>Request denied</h1><p>The device that shows <code>${device.userCode}</code> was not signed in. You can close this tab.</p>`,
        );
      }
      const chosen = userOrConsentAgain(reply, ctx, client, ticket, field('user_id'), {
        text: 'Approving signs in the device that shows the code',
        code: device.userCode,
      });
      if ('sent' in chosen) return chosen.sent;
      const found = chosen;
      device.decision = { approved: true, userId: found.user.id, tenantIds: found.user.tenantIds };
      auditClientGrant(
        state.audit,
        client,
        { kind: 'authorized', userId: found.user.id, scopes: device.scopes, flow: 'device_code' },
        request.id,
      );
      return sendPage(
        reply,
        200,
        'Device connected',
        `<h1>Device connected</h1><p>The device that shows <code>${device.userCode}</code> is signed in as ` +
          `${escapeHtml(found.user.name)}. Return to your terminal; you can close this tab.</p>`,
      );
    },
  );
}
