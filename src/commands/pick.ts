import type { Context } from '../context.js';
import { NotFoundError, UsageError } from '../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A tenant named by id or slug, with its display name (for messages and confirmations), from
 * the tenants visible to the caller.
 */
export async function resolveTenant(ctx: Context, ref: string): Promise<{ id: string; name: string }> {
  const platform = await ctx.platform();
  for await (const tenant of platform.tenants.listAll({ limit: 200 })) {
    if (tenant.id === ref || tenant.slug === ref) return { id: tenant.id, name: tenant.display_name };
  }
  if (UUID.test(ref)) return { id: ref, name: ref };
  throw new NotFoundError(`no tenant ${JSON.stringify(ref)} among the tenants visible to you`, {
    hint: 'see `svc tenants ls` (use the id or the slug)',
  });
}

/**
 * The tenant a command acts on: the argument when given (id or slug); on a terminal, a choice
 * among the tenants visible to the caller; elsewhere a usage error.
 */
export async function pickTenant(
  ctx: Context,
  ref: string | undefined,
  what: string,
): Promise<{ id: string; name: string }> {
  if (ref !== undefined && ref.trim() !== '') return resolveTenant(ctx, ref.trim());
  if (!ctx.canPrompt) throw new UsageError(`${what} needs a TENANT (id or slug); see \`svc tenants ls\``);
  const data = await (await ctx.platform()).tenants.list({ limit: 200 });
  if (data.items.length === 0) throw new UsageError('you have no tenants to choose from');
  return ctx.prompter.select(
    'Tenant',
    data.items.map((t) => ({
      name: `${t.display_name} (${t.slug})`,
      value: { id: t.id, name: t.display_name },
      description: `${t.subscription_tier}, your role: ${t.role}`,
    })),
  );
}

/** Options whose webhook may be left out on the command line (asked for on a terminal). */
export type WithOptionalWebhook<T extends { webhook: string }> = Omit<T, 'webhook'> & {
  webhook: string | undefined;
};

/**
 * The webhook a command acts on: the argument when given; on a terminal, a choice among the
 * tenant's webhooks; elsewhere a usage error.
 */
export async function pickWebhook(ctx: Context, given: string | undefined, what: string): Promise<string> {
  if (given !== undefined) return given;
  if (!ctx.canPrompt) throw new UsageError(`${what} needs a WEBHOOK id; see \`svc webhooks ls\``);
  const data = await (await ctx.platform()).webhooks.list();
  if (data.items.length === 0) throw new UsageError('this tenant has no webhooks to choose from');
  return ctx.prompter.select(
    'Webhook',
    data.items.map((w) => ({
      name: `${w.id}  ${w.url}`,
      value: w.id,
      ...(w.description || w.status
        ? { description: [w.status, w.description].filter(Boolean).join(' · ') }
        : {}),
    })),
  );
}

/** Fills in the webhook of parsed options (see pickWebhook). */
export async function withWebhook<T extends { webhook: string }>(
  ctx: Context,
  parsed: WithOptionalWebhook<T>,
  what: string,
): Promise<T> {
  return { ...parsed, webhook: await pickWebhook(ctx, parsed.webhook, what) } as T;
}
