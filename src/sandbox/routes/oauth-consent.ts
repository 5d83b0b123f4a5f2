import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { OAUTH_SCOPES } from '../../api/constants.js';
import { primaryRole } from '../domain/identity.js';
import type { ConsentTicket, OAuthClientRecord } from '../domain/oauth.js';
import type { RouteContext } from './context.js';
import { type ConsentView, consentPage, PAGE_HEADERS, type UserChoice } from './oauth-pages.js';

/**
 * Who may approve a client on the consent page, and finding one among thousands: what the
 * authorization endpoint and the device verification page (RFC 8628) share.
 */

/**
 * The form the consent page posts, to the authorization endpoint and to the device verification
 * endpoint alike: one declaration, so the published document describes both requests.
 */
export const ConsentForm = Type.Object(
  {
    ticket: Type.String({ description: 'The single-use ticket of the page shown' }),
    user_id: Type.Optional(Type.String({ description: 'A user id, or an email in any case' })),
    decision: Type.String({ description: 'approve or deny' }),
  },
  { additionalProperties: true },
);

/** How many users the page suggests at once. */
const SUGGESTED = 20;

/** How long after a change of a client's scopes or redirect URIs the consent page says it. */
export const RECENT_CHANGE_MS = 7 * 86_400_000;

const FIELD_NAMES: Record<string, string> = { scopes: 'scopes', redirect_uris: 'redirect URIs' };

/**
 * A change of the client's scopes or redirect URIs made within RECENT_CHANGE_MS, as the consent
 * page says it (which, when, by whom: a user's name and id, else the credential's id), or
 * undefined: an approving user may notice a trusted client re-armed by someone else.
 */
export function recentChange(
  ctx: RouteContext,
  client: OAuthClientRecord,
): { fields: string; at: string; by: string; byId: string } | undefined {
  const change = client.registrationChange;
  if (!change || ctx.state.clock.now() - Date.parse(change.at) > RECENT_CHANGE_MS) return undefined;
  const user = ctx.state.identity.users.get(change.by);
  return {
    fields: change.fields.map((f) => FIELD_NAMES[f] ?? f).join(' and '),
    at: change.at,
    by: user ? user.name : '',
    byId: change.by,
  };
}

export interface EligibleUser extends UserChoice {
  tenantIds: string[];
}

/** The users who may consent for this client: members of its tenant (any tenant for the first-party client). */
export function eligibleUsers(ctx: RouteContext, client: OAuthClientRecord): EligibleUser[] {
  const { identity } = ctx.state;
  const users: EligibleUser[] = [];
  for (const user of identity.users.values()) {
    const member = identity.memberTenants(user.id);
    const tenants = client.tenant_id ? member.filter((t) => t.id === client.tenant_id) : member;
    if (tenants.length === 0) continue;
    users.push({
      id: user.id,
      name: user.name,
      email: user.email,
      tenantIds: tenants.map((t) => t.id),
      detail: client.tenant_id
        ? (primaryRole(identity.rolesOf(user.id, client.tenant_id)) ?? 'no role')
        : `${tenants.length} tenant${tenants.length === 1 ? '' : 's'}`,
    });
  }
  return users;
}

/** Users whose id, name or email contains the text (all of them for no text), the first few. */
export function suggestUsers(users: EligibleUser[], text = ''): EligibleUser[] {
  const needle = text.trim().toLowerCase();
  const matches = needle
    ? users.filter((u) => [u.id, u.name, u.email].some((v) => v.toLowerCase().includes(needle)))
    : users;
  return matches.slice(0, SUGGESTED);
}

/**
 * The user a typed value names (an id exactly, or an email in any case), or why none is, with
 * the users it might have meant.
 */
export function findUser(
  users: EligibleUser[],
  typed: string | undefined,
): { user: EligibleUser } | { problem: string; suggestions: EligibleUser[] } {
  const text = (typed ?? '').trim();
  if (text === '') return { problem: 'Type the user to sign in as.', suggestions: suggestUsers(users) };
  const user =
    users.find((u) => u.id === text) ?? users.find((u) => u.email.toLowerCase() === text.toLowerCase());
  if (user) return { user };
  const suggestions = suggestUsers(users, text);
  return {
    problem:
      suggestions.length === 0
        ? `No sandbox user "${text}" can sign in here.`
        : `"${text}" is not the id or email of a user who can sign in here; the suggestions match it.`,
    suggestions: suggestions.length === 0 ? suggestUsers(users) : suggestions,
  };
}

/** Shows the consent page for a ticket just opened (first showing, or again after a problem). */
export function sendConsent(
  reply: FastifyReply,
  ctx: RouteContext,
  client: OAuthClientRecord,
  view: {
    ticket: string;
    ticketData: Omit<ConsentTicket, 'expiresAtMs'>;
    users: EligibleUser[];
    suggestions?: EligibleUser[];
    typed?: string;
    problem?: string;
    outcome: ConsentView['outcome'];
  },
): FastifyReply {
  const tenant = client.tenant_id ? ctx.state.identity.tenantsById.get(client.tenant_id) : undefined;
  const changed = recentChange(ctx, client);
  return reply
    .code(200)
    .headers(PAGE_HEADERS)
    .type('text/html; charset=utf-8')
    .send(
      consentPage({
        ticket: view.ticket,
        action: view.ticketData.deviceKey ? 'device' : 'authorize',
        clientName: client.name,
        clientId: client.client_id,
        clientDescription: client.description,
        tenant: tenant ? `${tenant.display_name} (${tenant.slug})` : 'every tenant you belong to',
        scopes: view.ticketData.scopes.map((name) => ({ name, description: OAUTH_SCOPES[name] ?? name })),
        ...(changed === undefined ? {} : { changed }),
        userCount: view.users.length,
        suggestions: view.suggestions ?? suggestUsers(view.users),
        ...(view.typed === undefined ? {} : { typed: view.typed }),
        ...(view.problem === undefined ? {} : { problem: view.problem }),
        outcome: view.outcome,
      }),
    );
}

/**
 * The user typed on the consent page, or — when nobody matches — the page again, with a new ticket
 * (the one just posted is used up), the problem and the users the text might mean.
 */
export function userOrConsentAgain(
  reply: FastifyReply,
  ctx: RouteContext,
  client: OAuthClientRecord,
  ticket: ConsentTicket,
  typed: string | undefined,
  outcome: ConsentView['outcome'],
): { user: EligibleUser } | { sent: FastifyReply } {
  const users = eligibleUsers(ctx, client);
  const found = findUser(users, typed);
  if ('user' in found) return found;
  const { expiresAtMs: _, ...ticketData } = ticket;
  return {
    sent: sendConsent(reply, ctx, client, {
      ticket: ctx.state.oauth.openTicket(ticketData),
      ticketData,
      users,
      suggestions: found.suggestions,
      typed: typed ?? '',
      problem: found.problem,
      outcome,
    }),
  };
}
