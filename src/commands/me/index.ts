import { Command } from 'commander';
import type { Context } from '../../context.js';
import type { Field } from '../../output/output.js';
import { identityDespiteTenant, notYoursWarning, roleLessNote } from '../../platform/tenant-ref.js';
import { examples, type MakeContext } from '../kit.js';

export async function runMe(ctx: Context): Promise<void> {
  // Who you are does not depend on the run's tenant: one that is not yours is said, not refused.
  const { identity: data, refused } = await identityDespiteTenant(await ctx.platform(), ctx.settings());
  if (refused)
    ctx.out.warn(notYoursWarning(ctx.settings(), data.tenants, Boolean(ctx.env.SVC_TOKEN?.trim())));
  else {
    // A tenant of the call the answer does not list among yours: no longer yours (attack29b).
    const note = roleLessNote(ctx.settings(), data);
    if (note !== undefined) ctx.out.warn(note);
  }
  const tenants = Array.isArray(data?.tenants) ? data.tenants : [];
  await ctx.out.record(data, [
    ['id', data?.id],
    ['type', data?.type],
    ['name', data?.name],
    ['email', data?.email],
    ['tenant', data?.tenant_id],
    ['tenants', tenants.map((t) => `${t.slug} (${t.role})`).join(', ')],
    ['org', data?.org ? `${data.org.id}${data.org.role ? ` (${data.org.role})` : ''}` : undefined],
    ['credential', data?.credential?.kind],
    // Whose hold an API key depends on: it acts only while they hold its role without an end date.
    ...(data?.type === 'api_key' ? [['issued by', data.credential?.issued_by] satisfies Field] : []),
    ['expires', data?.credential?.expires_at, 'time'],
    ['scopes', data?.credential?.scopes?.join(' ')],
  ]);
}

export default function me(make: MakeContext): Command {
  return new Command('me')
    .summary('Show who you are calling the API as')
    .description(
      'Show the identity behind the current credential (GET /v1/me): user, tenants and roles, credential.',
    )
    .addHelpText(
      'after',
      examples(
        ['svc me', 'your identity in the current profile'],
        ['svc me --json | jq -r .tenant_id', 'the tenant id'],
      ),
    )
    .action(async (_flags: unknown, cmd: Command) => {
      await runMe(await make(cmd));
    });
}
