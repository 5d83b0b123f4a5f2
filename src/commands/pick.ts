import type { Webhook } from '../api/schemas/webhooks.js';
import { canonicalTenantRef, isTenantId, tenantByRef } from '../api/tenant-id.js';
import { svcCommand } from '../config/settings.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { rfc3339 } from '../output/format.js';
import { urlInWords } from '../output/hosts.js';
import { callerTenants, findTenant, type KnownTenant } from '../platform/tenant-ref.js';
import { tenantWords } from '../platform/tenants-said.js';
import type { Choice } from '../system/prompter.js';
import { nonEmpty } from './kit.js';
import { missingArgument } from './missing-argument.js';

/** A tenant a command acts on: its id, and how people know it, for prompts and messages. */
export interface NamedTenant {
  id: string;
  /** "Acme Treasury (acme-treasury)"; looked up only when someone reads it. */
  label: () => Promise<string>;
}

/** A known tenant's words, as every ✓ line naming a tenant says it (tenantWords, changed-in.ts). */
const labelOf = (t: KnownTenant) => tenantWords(t);

/**
 * The most choices a picker offers. Past it a list is no longer a way to choose, so the picker
 * asks for the argument instead of showing a part of the list as if it were all of it.
 */
export const PICK_LIMIT = 500;

/**
 * A choice among the items `read` reads from a list: that list changed while svc read it (an item
 * it repeated kept once; an unstable order can also leave one out: Platform.sayTwice) is said
 * before the prompt, as the warning the run would say at its end, for it bears on the choice (the
 * item wanted may be missing: run the command again); at the run's end it came after the choice
 * (closing note of session 23). Only the picker's own list: another read earlier in the run is
 * left for the run's end (review24a L2: `roles revoke`'s prompt was preceded by the warning of a
 * role lookup's list). Every picker of svc chooses through it.
 */
export async function chooseFrom<T>(
  ctx: Context,
  message: string,
  read: () => Promise<Array<Choice<T>>>,
): Promise<T> {
  const platform = await ctx.platform();
  const before = platform.twiceSoFar();
  const choices = await read();
  platform.sayTwice((note) => ctx.out.warn(note), 'kept', before);
  return ctx.prompter.select(message, choices);
}

/** Every item, page after page, or a usage error naming the fix when there are over PICK_LIMIT. */
async function everyChoice<T>(items: AsyncIterable<T>, what: string, fix: string): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) {
    if (all.length === PICK_LIMIT) {
      throw new UsageError(`you can see more than ${PICK_LIMIT} ${what}, too many to choose from`, {
        hint: fix,
      });
    }
    all.push(item);
  }
  return all;
}

/**
 * A tenant named by id or slug. A well-formed id needs no request (the server checks it with the
 * call it goes with); a slug is found among the caller's tenants (one GET /v1/me), else exit 5
 * with a suggestion.
 */
export async function resolveTenant(ctx: Context, given: string): Promise<NamedTenant> {
  const platform = await ctx.platform();
  const ref = canonicalTenantRef(given);
  if (isTenantId(ref)) {
    let label: Promise<string> | undefined;
    return {
      id: ref,
      label: () => {
        label ??= callerTenants(platform).then(
          (tenants) => {
            const known = tenantByRef(tenants, ref);
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
 * The tenant a TENANT argument names, resolved as resolveTenant does, where the run's --tenant or
 * SVC_TENANT names another: refused (exit 2) naming both, as `svc plan` refuses a file's tenants
 * beyond --tenant. The argument silently won: a job scoped by SVC_TENANT made or revoked a key in
 * the tenant its argument named, and a --tenant naming no tenant was never checked (attack24c F3);
 * it is now resolved (exit 5 when it names none). The profile's own tenant is a default, not a
 * bound: an argument overrides it without a word.
 */
export async function resolveTenantArgument(ctx: Context, given: string): Promise<NamedTenant> {
  const named = await resolveTenant(ctx, nonEmpty('TENANT', given));
  const settings = ctx.settings();
  const bound = settings.values.tenant;
  const source = settings.sources.tenant;
  if (bound === undefined || (source !== 'flag' && source !== 'env')) return named;
  const scoped = await resolveTenant(ctx, bound);
  if (scoped.id === named.id) return named;
  const [flag, without] =
    source === 'flag'
      ? [`--tenant ${bound}`, 'leave out --tenant']
      : [`SVC_TENANT=${bound}`, 'run it with SVC_TENANT unset (`SVC_TENANT= svc …`)'];
  throw new UsageError(
    `${flag} bounds this run to one tenant, but TENANT ${given.trim()} names another (${await named.label()}); nothing was changed`,
    { code: 'outside_given_tenant', hint: `give the same tenant in both, or ${without}` },
  );
}

/**
 * The tenant a command acts on: the argument when given (id or slug); else the profile's tenant
 * (--tenant, SVC_TENANT, `svc config set tenant`); else, on a terminal, a choice among the
 * tenants visible to the caller (all of them, or a usage error past PICK_LIMIT); elsewhere a usage
 * error.
 */
export async function pickTenant(ctx: Context, ref: string | undefined): Promise<NamedTenant> {
  // An empty or blank argument is refused as every verb's is, not taken as "not given": a loop over
  // an unset `$T` listed the profile's tenant's keys under the name it gave (attack24c F2).
  if (ref !== undefined) return resolveTenantArgument(ctx, ref);
  const configured = ctx.settings().values.tenant;
  if (configured) return resolveTenant(ctx, configured);
  if (!ctx.canPrompt) {
    throw missingArgument('tenant', { settings: ctx.settings() });
  }
  return chooseFrom(ctx, 'Tenant', async () => {
    const tenants = await everyChoice(
      (await ctx.platform()).tenants.listAll({ limit: 200 }, { tenant: null }),
      'tenants',
      `pass the TENANT (id or slug), or set the profile's tenant; see \`${svcCommand(ctx.settings(), 'tenants ls')}\``,
    );
    if (tenants.length === 0) throw new UsageError('you have no tenants to choose from');
    return tenants.map((t) => ({
      name: labelOf(t),
      value: { id: t.id, label: async () => labelOf(t) },
      description: `${t.subscription_tier}, your role: ${t.role}`,
    }));
  });
}

/** Options whose webhook may be left out on the command line (asked for on a terminal). */
export type WithOptionalWebhook<T extends { webhook: string }> = Omit<T, 'webhook'> & {
  webhook: string | undefined;
};

/**
 * The webhook a command acts on: the argument when given; on a terminal, a choice among the
 * tenant's webhooks (all of them, or a usage error past PICK_LIMIT); elsewhere a usage error.
 */
export async function pickWebhook(ctx: Context, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  if (!ctx.canPrompt) throw missingArgument('webhook', { settings: ctx.settings() });
  // Masked, two URLs that differ only by a secret (`?token=…` per route) look the same: such lines
  // also say when each was made, its kinds and description (review18 R18-6).
  const apart = (w: Webhook) =>
    `  (${[`created ${rfc3339(w.created_at)}`, ...w.event_types, ...(w.description ? [JSON.stringify(w.description)] : [])].join(', ')})`;
  return chooseFrom(ctx, 'Webhook', async () => {
    const webhooks = await everyChoice(
      (await ctx.platform()).webhooks.listAll(),
      'webhooks in this tenant',
      `pass the WEBHOOK id; see \`${svcCommand(ctx.settings(), 'webhooks ls')}\``,
    );
    if (webhooks.length === 0) throw new UsageError('this tenant has no webhooks to choose from');
    const masked = webhooks.map((w) => urlInWords(w.url));
    const shared = new Set(masked.filter((url, i) => masked.indexOf(url) !== i));
    return webhooks.map((w, i) => ({
      name: `${w.id}  ${masked[i]}${shared.has(masked[i]!) ? apart(w) : ''}`,
      value: w.id,
      ...(w.description || w.status
        ? { description: [w.status, w.description].filter(Boolean).join(' · ') }
        : {}),
    }));
  });
}

/** Fills in the webhook of parsed options (see pickWebhook). */
export async function withWebhook<T extends { webhook: string }>(
  ctx: Context,
  parsed: WithOptionalWebhook<T>,
): Promise<T> {
  return { ...parsed, webhook: await pickWebhook(ctx, parsed.webhook) } as T;
}
