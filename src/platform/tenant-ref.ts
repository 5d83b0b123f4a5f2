import { didYouMean } from '../api/suggest.js';
import { namesTenant, tenantByRef } from '../api/tenant-id.js';
import { type CommandLine, commandLine, inTenant, type Settings } from '../config/settings.js';
import { lookupMayFail, NotFoundError, SvcError } from '../errors.js';
import { quoted } from '../output/format.js';
import { sym } from '../output/symbols.js';
import type { Platform } from './index.js';
import type { CallerIdentity } from './me.js';
import type { CallOptions } from './transport.js';

/**
 * A tenant named the way people name it — its id or its slug — turned into its id. A
 * well-formed id is taken as it is (no request: the server checks it on the call it goes with);
 * a slug is looked up among the caller's tenants, in one GET /v1/me sent without X-Tenant-Id
 * (that header is what is being resolved), or, from a server whose /v1/me lists no tenants, in
 * GET /v1/tenants. (What a well-formed id is: src/api/tenant-id.ts.)
 */

/** A tenant named by a slug (or id) that names no tenant the caller can see. Exit 5. */
export class UnknownTenantError extends NotFoundError {}

/**
 * A tenant that exists (a listing the caller can read has it) but is not one of the credential's
 * tenants, or one where the caller holds no role: refused as the same tenant named by its id is.
 * Exit 4.
 */
export class ForeignTenantError extends SvcError {
  constructor(message: string, hint: string) {
    super('forbidden', message, { code: 'tenant_forbidden', hint });
  }
}

export interface KnownTenant {
  id: string;
  slug: string;
  display_name: string;
}

/** The tenants the caller may act in, as /v1/me lists them (else /v1/tenants). */
export async function callerTenants(platform: Platform): Promise<KnownTenant[]> {
  const me = await platform.me.get({ tenant: null });
  if (Array.isArray(me.tenants)) return me.tenants;
  const all: KnownTenant[] = [];
  for await (const t of platform.tenants.listAll({ limit: 200 }, { tenant: null })) all.push(t);
  return all;
}

/**
 * The tenant with this id or slug among the caller's; else, when a listing the caller can read
 * has it (an org_admin's GET /v1/tenants), a refusal (exit 4) like the same tenant named by its
 * id; else a not-found error (exit 5) with a suggestion. `from` says where the name came from
 * (`--tenant`, `SVC_TENANT`).
 */
export async function findTenant(platform: Platform, ref: string, from?: string): Promise<KnownTenant> {
  const tenants = await callerTenants(platform);
  const found = tenantByRef(tenants, ref);
  if (found) return found;
  const slugs = tenants.map((t) => t.slug);
  const yours = `yours: ${slugs.slice(0, 8).join(', ')}${slugs.length > 8 ? `, ${sym.ellipsis}` : ''}`;
  const existing = await visibleTenant(platform, ref);
  if (existing) {
    const where = from ? `from ${from}, ` : '';
    throw new ForeignTenantError(
      `tenant ${quoted(ref)} (${where}${existing.id}) is not one of your credential's tenants, or you hold no role there`,
      `${slugs.length ? `${yours}; ` : ''}ask an administrator of ${existing.slug} for a role, or use a credential that names it`,
    );
  }
  const where = from ? ` (from ${from})` : '';
  const out = from === undefined ? undefined : wayOut(platform.svcAnyTenant, from, slugs);
  throw new UnknownTenantError(
    `no tenant ${quoted(ref)}${where} among your tenants${didYouMean(ref, slugs)}`,
    {
      hint: out
        ? `${slugs.length ? `${yours}; ` : ''}${out}`
        : slugs.length
          ? `${yours} (see \`${platform.svcAnyTenant('tenants ls')}\`)`
          : `your credential names no tenant where you hold a role (see \`${platform.svcAnyTenant('me')}\`)`,
    },
  );
}

/**
 * How to stop using a tenant that is not one of the credential's, by where it came from
 * (`SVC_TENANT`, `profile NAME`, as findTenant's `from`). Not `svc tenants ls`: with that tenant
 * in force, it would only repeat the refusal. (--tenant: undefined; `svc tenants ls` leaves it out.)
 */
export function wayOut(svc: CommandLine, from: string, slugs: readonly string[]): string | undefined {
  if (from === 'SVC_TENANT') return 'set SVC_TENANT to one of yours, or unset it';
  if (!from.startsWith('profile ')) return undefined;
  const set = svc(`config set tenant ${slugs.length === 1 ? slugs[0] : 'SLUG'}`);
  return `\`${set}\`, or \`${svc('config unset tenant')}\``;
}

/**
 * GET /v1/me for a command about the credential (`me`, `tenants ls`, `auth status`, a login): a
 * profile's tenant that is not one of the credential's (a profile reused for another login) does
 * not stop it (`refused` says so); a tenant given by --tenant or SVC_TENANT, asked for by name
 * for this run, is refused as before.
 */
export async function identityDespiteTenant(
  platform: Platform,
  settings: Settings,
  options?: CallOptions,
): Promise<{ identity: CallerIdentity; refused?: SvcError }> {
  if (settings.sources.tenant !== 'profile') return { identity: await platform.me.get(options) };
  return platform.me.despiteTenant(options);
}

/** Where the run's tenant came from, in findTenant's words. */
export function tenantFrom(settings: Settings): string {
  const source = settings.sources.tenant;
  return source === 'flag' ? '--tenant' : source === 'env' ? 'SVC_TENANT' : `profile ${settings.profile}`;
}

/**
 * The warning of a command about the credential (`me`, `tenants ls`, `auth status`, a login) that
 * answered without the run's tenant because it is not one of the credential's. `token`: the
 * credential is SVC_TOKEN's, not the profile's, so the profile's tenant is not what to change
 * for it (attack23 F4): --tenant for the token, or SVC_TOKEN unset.
 */
export function notYoursWarning(
  settings: Settings,
  tenants: readonly KnownTenant[] | undefined,
  token = false,
): string {
  const slugs = (tenants ?? []).map((t) => t.slug);
  const from = tenantFrom(settings);
  if (token && from.startsWith('profile ')) {
    const one = slugs.length === 1 ? slugs[0]! : 'SLUG';
    const theirs = slugs.length ? slugs.join(', ') : 'none';
    return `the tenant ${quoted(settings.values.tenant ?? '')} of profile "${settings.profile}" is not one of those of the credential in SVC_TOKEN (${theirs}): pass --tenant ${one} with that token, or unset SVC_TOKEN to use the profile${sym.apostrophe}s own login`;
  }
  const which = tenantWhich(settings);
  const yours = slugs.length ? slugs.join(', ') : 'none';
  const out = wayOut(commandLine(inTenant(settings, undefined)), from, slugs);
  return `the tenant ${quoted(settings.values.tenant ?? '')} ${which} is not one of yours (yours: ${yours}): ${out}`;
}

/** Where the run's tenant came from, as a warning names it: `given by --tenant`, `from SVC_TENANT`, `of profile "P"`. */
function tenantWhich(settings: Settings): string {
  const from = tenantFrom(settings);
  return from === '--tenant'
    ? 'given by --tenant'
    : from === 'SVC_TENANT'
      ? 'from SVC_TENANT'
      : `of profile "${settings.profile}"`;
}

/**
 * The note of `svc me` whose answer names a tenant of the call that is not among the caller's
 * tenants (attack29b: a user whose last role in the profile's tenant was revoked saw `tenant
 * 8ab…` and an empty `tenants`, exit 0, with nothing saying the tenant is no longer theirs): the
 * platform still answers who they are there, but refuses whatever needs a role (exit 4). What it
 * means and the fix: a role from an administrator of that tenant, or another tenant of theirs.
 * No tenant at all (none named, none held): that no tenant's call will go through. Undefined when
 * the tenant is one of theirs, or when the answer lists no `tenants` at all.
 */
export function roleLessNote(settings: Settings, identity: CallerIdentity): string | undefined {
  // An answer without a `tenants` list says nothing of the caller's roles (the reference does not
  // show /v1/me's body: another server may leave it out): no note, never "no live role".
  if (!Array.isArray(identity.tenants)) return undefined;
  const tenants = identity.tenants;
  const slugs = tenants.map((t) => t.slug);
  const id = identity.tenant_id;
  if (id == null || id === '') {
    if (tenants.length > 0) return undefined;
    return 'you hold no live role in any tenant (tenants: none): the platform refuses every call that needs one (exit 4) until an administrator of a tenant grants you a role';
  }
  if (tenants.some((t) => namesTenant(t, id))) return undefined;
  const named = settings.values.tenant !== undefined && settings.values.tenant !== '';
  const which = named ? tenantWhich(settings) : "your credential's first tenant";
  // Another tenant of theirs, the way the tenant was chosen (findTenant's wayOut), else --tenant.
  const pass = `pass --tenant ${slugs.length === 1 ? slugs[0]! : 'SLUG'}`;
  const switchTo = named
    ? (wayOut(commandLine(inTenant(settings, undefined)), tenantFrom(settings), slugs) ?? pass)
    : pass;
  const other = slugs.length === 0 ? '' : `, or act in one of yours: ${switchTo}`;
  return `you hold no live role in tenant ${quoted(id)} (${which}), so it is not among your tenants (yours: ${slugs.length ? slugs.join(', ') : 'none'}): the platform refuses there whatever needs a role (exit 4); ask an administrator of that tenant for a role${other}`;
}

/** The tenant with this id or slug in GET /v1/tenants, when the caller may read it; else undefined. */
async function visibleTenant(platform: Platform, ref: string): Promise<KnownTenant | undefined> {
  try {
    for await (const t of platform.tenants.listAll({ limit: 200 }, { tenant: null })) {
      if (namesTenant(t, ref)) return t;
    }
  } catch (error) {
    // Not allowed to list, or the listing failed: the slug is then only known not to be the caller's.
    if (!lookupMayFail(error)) throw error;
  }
  return undefined;
}
