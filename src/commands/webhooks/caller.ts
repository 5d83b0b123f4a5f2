import { CallerAuthority, type Refusal } from '../../api/caller-authority.js';
import type { Role } from '../../api/schemas/roles.js';
import { tenantByRef } from '../../api/tenant-id.js';
import { notChecked as isUnanswered } from '../../bulk/judge.js';
import type { Context } from '../../context.js';
import { lookupMayFail, SvcError } from '../../errors.js';
import type { Platform } from '../../platform/index.js';
import { CallerForecast, notChecked } from '../roles/holds.js';

/**
 * What the caller holds in the run's tenant, for the dry runs of `webhooks replay` and `webhooks
 * dlq discard`, played against each item by the platform's rule (CallerAuthority.replay,
 * .discard), so a dry run never says "would be replayed" of what the platform refuses the caller.
 * Read once: GET /v1/me's `permissions` (live, the tenant's, readable with no permission); from a
 * server that does not give them, the caller's own assignments and the roles' permissions
 * (CallerForecast, which takes role.read). Undefined when neither can be read, with a warning
 * that the dry run cannot tell (the real run reports the platform's answers), and the dry run's
 * counts say so (UNCHECKED_HOLDINGS); a read that went unanswered stops the dry run (exit 1,
 * not_checked): it cannot tell `rows`.
 */
export async function callerAuthority(
  ctx: Context,
  platform: Platform,
  rows: string,
): Promise<CallerAuthority | undefined> {
  const tenant = ctx.profileSettings().values.tenant;
  if (!tenant) return undefined;
  const unanswered = (read: string, error: unknown) =>
    notChecked(`could not learn what you hold (${read}: ${(error as Error).message})`, rows);
  // Nothing to judge by: said, so a plan of "would be replayed" is not read as checked (review14 R1).
  const cannotTell = (read: string, error: unknown) => {
    ctx.out.warn(
      `could not learn what you hold (${read}: ${(error as Error).message}), so this dry run cannot tell ${rows}; the real run reports the platform's answers`,
    );
    return undefined;
  };
  try {
    const me = await platform.me.get({ signal: ctx.signal });
    const held = (me as { permissions?: unknown }).permissions;
    if (Array.isArray(held) && held.every((p) => typeof p === 'string')) {
      // Live now: a replay takes the read permission held now, just in time too.
      const slug = tenantByRef(me.tenants ?? [], tenant)?.slug ?? tenant;
      return new CallerAuthority(slug, [{ permissions: held, expiresAt: null }], me.type === 'user');
    }
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
    if (isUnanswered(error)) throw unanswered('GET /v1/me', error);
    return cannotTell('GET /v1/me', error);
  }
  const roles: Role[] = [];
  try {
    for await (const role of platform.roles.listAll({ limit: 200 }, { signal: ctx.signal })) roles.push(role);
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
    if (isUnanswered(error)) throw unanswered('GET /v1/roles', error);
    return cannotTell('GET /v1/roles', error);
  }
  return new CallerForecast(ctx, platform, tenant, roles).authority(rows);
}

/**
 * A dry run's counts when callerAuthority could not tell (undefined): they hold only if the
 * platform lets the caller, which it did not check (review15 R15-5).
 */
export const UNCHECKED_HOLDINGS =
  'not checked against what you hold (svc could not learn it): the platform may refuse any of them';

/** A refusal the platform would give an item, as its 403 fails it: the row's error, or a single item's exit 4. */
export const refusedItem = (refusal: Refusal): SvcError =>
  new SvcError('forbidden', refusal.message, { code: refusal.code });
