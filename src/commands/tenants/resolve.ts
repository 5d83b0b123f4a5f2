import type { TenantSummary } from '../../api/schemas/tenants.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A tenant named by id or slug, with its display name (for messages and confirmations), from
 * the tenants visible to the caller.
 */
export async function resolveTenant(ctx: Context, ref: string): Promise<{ id: string; name: string }> {
  const api = await ctx.api();
  for await (const tenant of api.paginate<TenantSummary>('/v1/tenants', { limit: 200 })) {
    if (tenant.id === ref || tenant.slug === ref) return { id: tenant.id, name: tenant.display_name };
  }
  if (UUID.test(ref)) return { id: ref, name: ref };
  throw new NotFoundError(`no tenant ${JSON.stringify(ref)} among the tenants visible to you`, {
    hint: 'see `svc tenants ls` (use the id or the slug)',
  });
}
