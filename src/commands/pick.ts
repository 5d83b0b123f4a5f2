import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { callerTenants, findTenant, isTenantId, type KnownTenant } from '../platform/tenant-ref.js';

/** A tenant a command acts on: its id, and how people know it, for prompts and messages. */
export interface NamedTenant {
  id: string;
  /** "Acme Treasury (acme-treasury)"; looked up only when someone reads it. */
  label: () => Promise<string>;
}

const labelOf = (t: KnownTenant) => `${t.display_name} (${t.slug})`;

/**
 * A tenant named by id or slug. A well-formed id needs no request (the server checks it with the
 * call it goes with); a slug is found among the caller's tenants (one GET /v1/me), else exit 5
 * with a suggestion.
 */
export async function resolveTenant(ctx: Context, ref: string): Promise<NamedTenant> {
  const platform = await ctx.platform();
  if (isTenantId(ref)) {
    let label: Promise<string> | undefined;
    return {
      id: ref,
      label: () => {
        label ??= callerTenants(platform).then(
          (tenants) => {
            const known = tenants.find((t) => t.id === ref);
            return known ? labelOf(known) : `tenant ${ref}`;
          },
          () => `tenant ${ref}`,
        );
        return label;
      },
    };
  }
  const tenant = await findTenant(platform, ref);
  return { id: tenant.id, label: async () => labelOf(tenant) };
}

/**
 * The tenant a command acts on: the argument when given (id or slug); else the profile's tenant
 * (--tenant, SVC_TENANT, `svc config set tenant`); else, on a terminal, a choice among the
 * tenants visible to the caller; elsewhere a usage error.
 */
export async function pickTenant(ctx: Context, ref: string | undefined, what: string): Promise<NamedTenant> {
  if (ref !== undefined && ref.trim() !== '') return resolveTenant(ctx, ref.trim());
  const configured = ctx.settings().values.tenant;
  if (configured) return resolveTenant(ctx, configured);
  if (!ctx.canPrompt) {
    throw new UsageError(`${what} needs a TENANT (id or slug)`, {
      hint: "pass it, or set the profile's tenant (--tenant, SVC_TENANT, `svc config set tenant`); see `svc tenants ls`",
    });
  }
  const data = await (await ctx.platform()).tenants.list({ limit: 200 }, { tenant: null });
  if (data.items.length === 0) throw new UsageError('you have no tenants to choose from');
  return ctx.prompter.select(
    'Tenant',
    data.items.map((t) => ({
      name: labelOf(t),
      value: { id: t.id, label: async () => labelOf(t) },
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
