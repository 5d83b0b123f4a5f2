import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { OAUTH_PATHS } from '../../api/constants.js';
import { redirectUriShown } from '../../api/redirect-uris.js';
import { auditClientGrant } from '../domain/audit-trail.js';
import { type ConsentTicket, redirectRegistered } from '../domain/oauth.js';
import type { FormBody } from '../plugins/form.js';
import type { RouteContext } from './context.js';
import { ConsentForm, eligibleUsers, sendConsent, userOrConsentAgain } from './oauth-consent.js';
import { PAGE_HEADERS, sendErrorPage } from './oauth-pages.js';

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

const AuthorizeQuery = Type.Object(
  {
    response_type: Type.Optional(Type.String({ description: 'code' })),
    client_id: Type.Optional(Type.String()),
    redirect_uri: Type.Optional(Type.String()),
    scope: Type.Optional(
      Type.String({
        description: 'Space-separated scopes; default: every scope of the client (RFC 6749 §3.3)',
      }),
    ),
    state: Type.Optional(Type.String({ description: 'Opaque; returned unchanged' })),
    code_challenge: Type.Optional(
      Type.String({ description: 'base64url(SHA-256(code_verifier)), 43 characters' }),
    ),
    code_challenge_method: Type.Optional(Type.String({ description: 'S256 (plain is refused)' })),
  },
  { additionalProperties: true },
);

type Query = Record<string, string | string[] | undefined>;

/** Where an error can be sent: back to the validated redirect URI, with state and iss. */
function redirectWith(
  reply: FastifyReply,
  redirectUri: string,
  params: Record<string, string | null | undefined>,
): FastifyReply {
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) target.searchParams.set(name, value);
  }
  return reply.code(303).headers(PAGE_HEADERS).header('location', target.toString()).send();
}

function one(query: Query, name: string): string | undefined | 'repeated' {
  const value = query[name];
  if (Array.isArray(value)) return 'repeated';
  return value === undefined || value === '' ? undefined : value;
}

export default function oauthAuthorizeRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { state } = ctx;
  const browser = { auth: 'public', faultFree: true, idempotent: false } as const;

  app.get<{ Querystring: Query }>(
    OAUTH_PATHS.authorize,
    {
      config: { ...browser, operation: 'oauth_authorization_start' },
      attachValidation: true,
      schema: {
        tags: ['oauth'],
        summary: 'Authorization endpoint: the consent page (served at {app_url})',
        description:
          'A browser page, not a JSON API. An unknown client_id or a redirect_uri that is missing or not registered is shown ' +
          'on the page (HTTP 400) and never redirected to. redirect_uri must match a registered one exactly, except that a ' +
          'loopback http redirect may use any port (RFC 8252 §7.3). Other problems redirect to redirect_uri with an RFC 6749 ' +
          '§4.1.2.1 error (unsupported_response_type, unauthorized_client, invalid_scope, invalid_request for PKCE problems: ' +
          'code_challenge_method must be S256, `plain` is refused, and a challenge is required when the client has pkce_required). ' +
          'The page asks which sandbox user signs in (a user id or email typed into a field, with up to 20 suggestions the ' +
          "browser offers as you type; no script), shows the client's name, the tenant and the scopes, and posts Approve or " +
          'Deny back to this path. Every redirect carries state and iss (RFC 9207).',
        querystring: AuthorizeQuery,
        produces: ['text/html'],
        response: {
          200: { description: 'The consent page (HTML)', type: 'string' },
          303: { description: 'Redirect to redirect_uri with an error', type: 'null' },
          400: { description: 'An error page (HTML): unknown client or redirect URI', type: 'string' },
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const clientId = one(query, 'client_id');
      const redirectUri = one(query, 'redirect_uri');
      if (clientId === undefined || clientId === 'repeated') {
        return sendErrorPage(reply, 400, 'Invalid client', 'The request must name exactly one client_id.');
      }
      const client = state.oauth.clients.get(clientId);
      if (!client) {
        return sendErrorPage(reply, 400, 'Unknown client', `There is no OAuth client "${clientId}".`);
      }
      if (redirectUri === undefined || redirectUri === 'repeated') {
        return sendErrorPage(
          reply,
          400,
          'Invalid redirect URI',
          'The request must carry exactly one redirect_uri.',
        );
      }
      if (!redirectRegistered(client, redirectUri)) {
        return sendErrorPage(
          reply,
          400,
          'Redirect URI not registered',
          `${redirectUri} is not a redirect URI of ${client.name}.`,
        );
      }
      const stateParam = one(query, 'state');
      const back = (error: string, description: string) =>
        redirectWith(reply, redirectUri, {
          error,
          error_description: description,
          state: stateParam === 'repeated' ? undefined : stateParam,
          iss: ctx.baseUrl(),
        });
      const repeated = Object.entries(query).find(([, v]) => Array.isArray(v));
      if (repeated) return back('invalid_request', `parameter ${repeated[0]} is repeated`);
      const responseType = one(query, 'response_type');
      if (responseType === undefined) return back('invalid_request', 'response_type is required');
      if (responseType !== 'code')
        return back('unsupported_response_type', 'only response_type=code is supported');
      if (!client.grant_types.includes('authorization_code')) {
        return back('unauthorized_client', 'this client may not use the authorization code grant');
      }
      const scopeParam = one(query, 'scope') as string | undefined;
      const scopes =
        scopeParam === undefined ? client.scopes : [...new Set(scopeParam.split(' ').filter(Boolean))];
      const refused = scopes.filter((s) => !client.scopes.includes(s));
      if (scopes.length === 0 || refused.length > 0) {
        return back(
          'invalid_scope',
          refused.length > 0
            ? `scope ${refused.join(' ')} is not allowed for this client`
            : 'no scope requested',
        );
      }
      const method = one(query, 'code_challenge_method') as string | undefined;
      const challenge = one(query, 'code_challenge') as string | undefined;
      if (method !== undefined && method !== 'S256') {
        return back('invalid_request', `code_challenge_method ${method} is not supported; use S256`);
      }
      if (challenge !== undefined && method === undefined) {
        return back('invalid_request', 'code_challenge_method=S256 is required (plain is not supported)');
      }
      if (method !== undefined && challenge === undefined) {
        return back('invalid_request', 'code_challenge is required with code_challenge_method');
      }
      if (challenge !== undefined && !CHALLENGE.test(challenge)) {
        return back(
          'invalid_request',
          'code_challenge must be the 43-character base64url SHA-256 of the verifier',
        );
      }
      if (client.pkce_required && challenge === undefined) {
        return back(
          'invalid_request',
          'this client requires PKCE: send code_challenge with code_challenge_method=S256',
        );
      }
      const users = eligibleUsers(ctx, client);
      if (users.length === 0) return back('access_denied', "no sandbox user belongs to the client's tenant");
      const ticketData = {
        clientId: client.client_id,
        redirectUri,
        scopes,
        state: stateParam ?? null,
        challenge: challenge ?? null,
      };
      return sendConsent(reply, ctx, client, {
        ticket: state.oauth.openTicket(ticketData),
        ticketData,
        users,
        // As the browser goes there (punycode host): `exаmple.com` is not shown as example.com.
        outcome: { text: 'Approving sends you back to', code: redirectUriShown(redirectUri) },
      });
    },
  );

  app.post<{ Body: FormBody }>(
    OAUTH_PATHS.authorize,
    {
      config: { ...browser, operation: 'oauth_authorization_decide' },
      attachValidation: true,
      schema: {
        tags: ['oauth'],
        summary: 'The consent form: approve or deny (browser traffic)',
        description:
          'Posted by the consent page (application/x-www-form-urlencoded): ticket (single use, valid 10 minutes), user_id ' +
          '(an id, or an email in any case), decision=approve|deny. Approve redirects (303) to redirect_uri with code, state and ' +
          'iss; the code lives 60 seconds. A user_id that names no one who may sign in shows the page again (200, a new ticket) ' +
          'with the users it matches as suggestions. ' +
          'Deny redirects with error=access_denied. The client is read again as it is now: a redirect_uri removed from it ' +
          'since the page was shown gets an error page (400) and no redirect, a scope removed from it error=invalid_scope. ' +
          "Not in the reference: it is the sandbox's login page.",
        consumes: ['application/x-www-form-urlencoded'],
        body: ConsentForm,
        produces: ['text/html'],
        response: {
          200: {
            description: 'The consent page again: the user named is not one who may sign in',
            type: 'string',
          },
          303: { description: 'Redirect to redirect_uri with code (or error), state and iss', type: 'null' },
          400: { description: 'An error page (HTML)', type: 'string' },
        },
      },
    },
    async (request, reply) => {
      const body: FormBody = request.body && typeof request.body === 'object' ? request.body : {};
      const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
      const ticketId = field('ticket');
      const ticket: ConsentTicket | undefined = ticketId ? state.oauth.takeTicket(ticketId) : undefined;
      if (!ticket || ticket.deviceKey !== undefined) {
        return sendErrorPage(
          reply,
          400,
          'This request has expired',
          'The consent page was already answered or is too old. Start the login again from your application.',
        );
      }
      const client = state.oauth.clients.get(ticket.clientId);
      const iss = ctx.baseUrl();
      if (!client) return sendErrorPage(reply, 400, 'Unknown client', 'The client no longer exists.');
      // The client as it is now: a redirect URI removed since the page was shown is never sent to.
      if (!redirectRegistered(client, ticket.redirectUri)) {
        return sendErrorPage(
          reply,
          400,
          'Redirect URI not registered',
          `${ticket.redirectUri} is no longer a redirect URI of ${client.name}. Start the login again from your application.`,
        );
      }
      if (field('decision') !== 'approve') {
        return redirectWith(reply, ticket.redirectUri, {
          error: 'access_denied',
          error_description: 'the user denied the request',
          state: ticket.state,
          iss,
        });
      }
      const removed = ticket.scopes.filter((s) => !client.scopes.includes(s));
      if (removed.length > 0) {
        return redirectWith(reply, ticket.redirectUri, {
          error: 'invalid_scope',
          error_description: `scope ${removed.join(' ')} is no longer allowed for this client`,
          state: ticket.state,
          iss,
        });
      }
      const chosen = userOrConsentAgain(reply, ctx, client, ticket, field('user_id'), {
        text: 'Approving sends you back to',
        code: ticket.redirectUri,
      });
      if ('sent' in chosen) return chosen.sent;
      const { user } = chosen;
      const code = state.oauth.issueCode({
        clientId: client.client_id,
        redirectUri: ticket.redirectUri,
        challenge: ticket.challenge,
        userId: user.id,
        tenantIds: user.tenantIds,
        scopes: ticket.scopes,
      });
      auditClientGrant(
        state.audit,
        client,
        { kind: 'authorized', userId: user.id, scopes: ticket.scopes, flow: 'authorization_code' },
        request.id,
      );
      return redirectWith(reply, ticket.redirectUri, { code, state: ticket.state, iss });
    },
  );
}
