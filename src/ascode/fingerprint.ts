import { createHash } from 'node:crypto';
import type { OAuthClient } from '../api/schemas/oauth.js';
import type { Role } from '../api/schemas/roles.js';
import type { Webhook } from '../api/schemas/webhooks.js';
import type { LiveGrant } from './live.js';
import type { Kind } from './model.js';
import type { Unchanged } from './plan.js';

/**
 * Fingerprints of live resources: a short hash of the fields a plan compares (sets sorted), so
 * a saved plan can tell whether a resource is still as it was when the plan was computed.
 */

const sorted = (values: readonly string[] | undefined) => [...(values ?? [])].sort();

/** The fields of each kind a plan compares, as plain values (sets sorted). */
export const comparable = {
  // Ids too: a role deleted and re-created with the same name is another role (a saved plan's
  // change would go to the old id), and a grant of it another grant.
  role: (r: Role) => ({
    id: r.id,
    name: r.name,
    description: r.description ?? '',
    permissions: sorted(r.permissions),
  }),
  grant: (g: LiveGrant) => ({ user: g.user, role: g.roleName, role_id: g.roleId, expires_at: g.expiresAt }),
  webhook: (w: Webhook) => ({
    id: w.id,
    url: w.url,
    event_types: sorted(w.event_types),
    description: w.description ?? '',
    status: w.status ?? 'enabled',
    max_attempts: w.max_attempts ?? null,
  }),
  oauth_client: (c: OAuthClient) => ({
    client_id: c.client_id,
    name: c.name,
    description: c.description ?? '',
    redirect_uris: sorted(c.redirect_uris),
    grant_types: sorted(c.grant_types),
    scopes: sorted(c.scopes),
    token_lifetime_seconds: c.token_lifetime_seconds ?? null,
    refresh_token_lifetime_seconds: c.refresh_token_lifetime_seconds ?? null,
    pkce_required: c.pkce_required ?? null,
  }),
} as const;

export function fingerprint(fields: object): string {
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 16);
}

/** What identifies a live resource in a digest: its id where it has one. */
export function liveIdentity(kind: Kind, resource: Role | LiveGrant | Webhook | OAuthClient): string {
  if (kind === 'grant') {
    const g = resource as LiveGrant;
    return `${g.user} ${g.roleName}`;
  }
  if (kind === 'oauth_client') return (resource as OAuthClient).client_id;
  if (kind === 'role') return (resource as Role).name;
  return (resource as Webhook).id;
}

/** One hash over many resources (identity and fingerprint each), in any order. */
export class DigestBuilder {
  readonly #entries: string[] = [];

  add(identity: string, print: string): void {
    this.#entries.push(`${identity}=${print}`);
  }

  done(): Unchanged {
    const hash = createHash('sha256');
    for (const entry of this.#entries.sort()) hash.update(`${entry}\n`);
    return { count: this.#entries.length, digest: hash.digest('hex').slice(0, 16) };
  }
}
