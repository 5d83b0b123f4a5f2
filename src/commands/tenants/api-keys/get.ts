import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { refuseShortenedId } from '../../../http/path.js';
import { examples, type MakeContext, nonEmpty } from '../../kit.js';
import { keyArguments, keyNotListed, keyStatus, keyTenantRef, listedKey } from './shared.js';

/**
 * One API key of a tenant, as `ls` lists it (never the key itself): the platform has no GET of one
 * key, so it is read from the tenant's list (paged); a key that list does not hold is not found.
 */
export async function runApiKeyGet(
  ctx: Context,
  tenantGiven: string | undefined,
  keyId: string,
): Promise<void> {
  const id = nonEmpty('KEY', keyId);
  // Looked up in the listing, not in a path: the shortened id is refused as a path refuses it.
  refuseShortenedId('KEY', id);
  const tenantRef = await keyTenantRef(ctx, tenantGiven);
  const found = await listedKey(ctx, tenantRef, id, 'get');
  const k = found.key ?? (await keyNotListed(ctx, found, tenantRef, id));
  await ctx.out.record(k, [
    ['id', k.id],
    ['kind', k.kind],
    ['name', k.name],
    ['prefix', `${k.prefix}…`],
    ['tenant', `${await found.tenant.label()} ${k.tenant_id}`],
    ['created', k.created_at, 'time'],
    ['created by', k.created_by],
    ['justification', k.justification, 'text', 'optional'],
    ['revoked', k.revoked_at, 'time', 'optional'],
    ['status', keyStatus(k)],
    ['stopped because', k.stopped_reason, 'text', 'optional'],
  ]);
}

export function getCommand(make: MakeContext): Command {
  return new Command('get')
    .argument('[tenant]', "tenant id or slug (default: the profile's tenant; asked on a terminal)")
    .argument('[key-id]', "the key id (key_…); given alone, a key of the profile's tenant")
    .description(
      "Show one of a tenant's API keys that you may manage (never the key itself): its status — active, revoked,\n" +
        'or stopped, with why — and who issued it. With --json: the key record, as `ls --json` lists it.',
    )
    .addHelpText(
      'after',
      examples([
        'svc tenants api-keys get acme-treasury key_3f2a9c0e5b7d4a18c2e6f901',
        'is this key stopped, and why?',
      ]),
    )
    .action(async (first: string | undefined, second: string | undefined, _flags: unknown, cmd: Command) => {
      const { tenant, key } = await keyArguments(make, cmd, 'get', first, second);
      await runApiKeyGet(await make(cmd), tenant === undefined ? undefined : nonEmpty('TENANT', tenant), key);
    });
}
