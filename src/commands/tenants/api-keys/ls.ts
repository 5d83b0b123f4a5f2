import { Command } from 'commander';
import { svcCommand } from '../../../config/settings.js';
import type { Context } from '../../../context.js';
import { shellWord } from '../../../system/shell-words.js';
import { examples, type MakeContext } from '../../kit.js';
import {
  Listing,
  type ListingOptions,
  listingOptions,
  parseWholeListing,
  WHOLE_LIST_HELP,
} from '../../listing.js';
import { pickTenant } from '../../pick.js';
import { keyStatus } from './shared.js';

export function parseApiKeyList(flags: Record<string, unknown>): ListingOptions {
  return parseWholeListing(flags, 'tenants api-keys ls', true);
}

export async function runApiKeyList(
  ctx: Context,
  tenantRef: string | undefined,
  options: ListingOptions = parseApiKeyList({}),
): Promise<void> {
  const tenant = await pickTenant(ctx, tenantRef);
  const keys = (await ctx.platform()).tenants.apiKeys;
  // The sandbox's answer holds every key (WHOLE_LIST_HELP); a server that pages them is followed
  // by its cursor, page after page, as every list is (review27a F2: the first answer was handed
  // back for every page asked, and the listing stopped on a "cursor loop" of its own making).
  const data = await keys.list(tenant.id, options.cursor);
  let first: typeof data | undefined = data;
  const listing = new Listing<(typeof data.items)[number]>(
    options,
    Number.MAX_SAFE_INTEGER,
    'tenants api-keys ls',
  );
  // Keys whose role grants something the caller lacks are left out (the sandbox counts them).
  const mine = (data.withheld ?? 0) > 0 ? ' you may manage' : '';
  // A page after a cursor that holds no key says nothing of the tenant's keys.
  const empty =
    data.items.length === 0 && options.cursor === undefined && !ctx.out.isMachine
      ? `no API keys${mine} in ${await tenant.label()}`
      : '';
  // Every page's count, said once the pages are read (fixnum2: only the first page's was said).
  let withheld = 0;
  await ctx.out.list(
    listing.items(async ({ cursor }) => {
      const page = first ?? (await keys.list(tenant.id, cursor));
      first = undefined;
      // From a --cursor, a page asked without one is the listing's look at the list's start
      // (Listing: a server ignoring the cursor), not a page of this listing.
      if (cursor !== undefined || options.cursor === undefined) withheld += page.withheld ?? 0;
      return page;
    }),
    [
      { header: 'id', value: (k) => k.id, kind: 'id' },
      { header: 'kind', value: (k) => k.kind },
      { header: 'name', value: (k) => k.name, kind: 'name' },
      // The prefix tells a leaked key's row: cut only as ids are, to a prefix unique in the column (review22e M1).
      { header: 'prefix', value: (k) => `${k.prefix}…`, kind: 'id' },
      { header: 'created', value: (k) => k.created_at, kind: 'time' },
      { header: 'revoked', value: (k) => k.revoked_at, kind: 'time' },
      { header: 'status', value: keyStatus, kind: 'status' },
      { header: 'stopped because', value: (k) => k.stopped_reason, kind: 'detail', optional: 1 },
    ],
    { empty },
  );
  if (withheld > 0) {
    // A listing that stopped before the end (--limit) counts the pages it read only.
    const read = listing.next ? ' on the pages read' : '';
    ctx.out.warn(
      `${withheld} more key${withheld === 1 ? '' : 's'} of ${await tenant.label()} not listed${read}: ${withheld === 1 ? 'its role grants' : 'their roles grant'} permissions you do not hold (a service-role key acts as tenant_admin); an administrator who holds them sees ${withheld === 1 ? 'it' : 'them'}`,
    );
  }
  // The continuation names the tenant listed.
  listing.hintMore(
    ctx,
    svcCommand(ctx.settings(), `tenants api-keys ls ${shellWord(tenantRef ?? tenant.id)}`),
  );
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .argument('[tenant]', "tenant id or slug (default: the profile's tenant; asked on a terminal)")
    .description(
      "List a tenant's API keys that you may manage: those whose role's permissions you hold (never the keys themselves).\n" +
        WHOLE_LIST_HELP,
    );
  for (const option of listingOptions('keys')) command.addOption(option);
  return command
    .addHelpText(
      'after',
      '\nSTATUS is active, revoked, or stopped: not revoked, but the key does not act because the user who\n' +
        'issued it no longer holds every permission of its role without an end date (wound down to an\n' +
        'end date, or a role taken away); STOPPED BECAUSE says which. It acts again once they hold them\n' +
        'without an end date; or have a current admin issue a new key and revoke this one.',
    )
    .addHelpText('after', examples(['svc tenants api-keys ls acme-treasury', 'keys of Acme Treasury']))
    .action(async (tenant: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseApiKeyList(flags);
      await runApiKeyList(await make(cmd), tenant, options);
    });
}
