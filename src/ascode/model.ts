import type { Expiry } from '../api/expiry.js';
import type { ManagedKind } from './schema.js';

/**
 * An access file as svc understands it: blocks of entries, each entry with the line it came
 * from, and what the file manages (what `svc apply --prune` may remove).
 */

export type Kind = 'role' | 'grant' | 'webhook' | 'oauth_client';
export const KINDS: readonly Kind[] = ['role', 'grant', 'webhook', 'oauth_client'];

/** The file's `manage` section, with its defaults (`none`) filled in. */
export interface Manage {
  roles: 'all' | 'none';
  grants: 'all' | 'listed-roles' | 'none';
  webhooks: 'all' | 'none';
  oauth_clients: 'all' | 'none';
}

export const MANAGE_OF: Record<Kind, ManagedKind> = {
  role: 'roles',
  grant: 'grants',
  webhook: 'webhooks',
  oauth_client: 'oauth_clients',
};

export interface Located {
  /** The line of the entry in the file (for `file:line` messages). */
  line: number | undefined;
}

export interface RoleEntry extends Located {
  name: string;
  description?: string;
  permissions: string[];
}

export interface GrantEntry extends Located {
  user: string;
  role: string;
  expiry: Expiry;
  justification?: string;
}

export interface WebhookEntry extends Located {
  id?: string;
  /** As the platform keeps it (a WHATWG URL's href): `https://x.example` is `https://x.example/`. */
  url: string;
  event_types: string[];
  description?: string;
  status?: 'enabled' | 'disabled';
  max_attempts?: number;
}

export interface ClientEntry extends Located {
  client_id?: string;
  name: string;
  description?: string;
  redirect_uris: string[];
  grant_types?: string[];
  scopes: string[];
  token_lifetime_seconds?: number;
  refresh_token_lifetime_seconds?: number;
  pkce_required?: boolean;
}

export interface TenantRef extends Located {
  ref: string;
}

export interface Block extends Located {
  tenants: 'all' | TenantRef[];
  roles: RoleEntry[];
  grants: GrantEntry[];
  webhooks: WebhookEntry[];
  clients: ClientEntry[];
  /**
   * Grants whose entry failed its shape check (a bad duration: reported at its line), kept for
   * their references alone, so their role and user are checked in the same run (README: every
   * problem at once), never planned.
   */
  unreadGrants?: UnreadGrant[];
}

/** The user and role of a grant entry that is not valid, at its line. */
export interface UnreadGrant {
  line: number | undefined;
  user: string;
  role: string;
}

export interface AccessFile {
  label: string;
  sha256: string;
  manage: Manage;
  blocks: Block[];
  /** Roles the file declares in entries that are not valid (each reported at its line), by name: the entry's line. */
  unreadRoles?: ReadonlyMap<string, number | undefined>;
}

/** What one tenant should have, once every block naming it is added up. */
export interface DesiredTenant {
  roles: Map<string, RoleEntry>;
  /** By `user role`. */
  grants: Map<string, GrantEntry>;
  webhooks: WebhookEntry[];
  clients: ClientEntry[];
  /** Block.unreadGrants of the blocks naming the tenant: checked for references only. */
  unreadGrants?: UnreadGrant[];
  /** The line of the first block naming the tenant. */
  line: number | undefined;
}

export const grantKey = (user: string, role: string): string => `${user} ${role}`;
