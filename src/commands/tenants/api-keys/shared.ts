import type { Command } from 'commander';
import type { ApiKey } from '../../../api/schemas/api-keys.js';
import { type CommandLine, commandLine, svcCommand, type TargetSettings } from '../../../config/settings.js';
import type { Context } from '../../../context.js';
import { NotFoundError } from '../../../errors.js';
import { idInWords, refuseCredentialAsId } from '../../../http/path.js';
import { sym } from '../../../output/symbols.js';
import { keysOf } from '../../../platform/errors.js';
import { shellWord } from '../../../system/shell-words.js';
import type { MakeContext } from '../../kit.js';
import { missingArgument } from '../../missing-argument.js';
import { type NamedTenant, pickTenant, resolveTenantArgument } from '../../pick.js';
import { parsedUnswapped, SwappedArguments } from '../../roles/swapped.js';

/**
 * revoked; stopped: not revoked, but it does not act (the platform's stopped_reason says why: its
 * issuer no longer holds its role's permissions without an end date); active: it acts. Empty when
 * the platform does not say (no stopped_reason), rather than "active" unknown.
 */
export function keyStatus(k: ApiKey): string | undefined {
  if (k.revoked_at !== null) return 'revoked';
  if (k.stopped_reason === undefined) return undefined;
  return k.stopped_reason === null ? 'active' : 'stopped';
}

/**
 * TENANT and KEY as `get` and `revoke` are given (attack26a F10). A key id (`key_…`) is never a
 * tenant's id (a UUID) or slug: given alone, it is the KEY, of the profile's tenant (TENANT left
 * out, as `ls` and `create` allow); given first, before a TENANT, the two are refused with the
 * command meant, as `roles assign/revoke` refuse ROLE USER (roles/swapped.ts, whose rule this is).
 */
export function tenantAndKey(
  verb: 'get' | 'revoke',
  first: string | undefined,
  second: string | undefined,
  settings?: TargetSettings,
): { tenant: string | undefined; key: string } {
  if (second === undefined) {
    if (first !== undefined && isKey(first)) return { tenant: undefined, key: first };
    throw missingArgument('key-id', { given: first === undefined ? {} : { tenant: first }, settings });
  }
  if (isKey(first) && !isKey(second))
    throw new SwappedArguments(
      `tenants api-keys ${verb} ${shellWord(second)} ${shellWord(first!)}`,
      'TENANT KEY',
    );
  return { tenant: first, key: second };
}

const isKey = (word: string | undefined) => word !== undefined && /^key_/.test(word.trim());

/**
 * tenantAndKey as the verbs' actions call it: a missing KEY-ID's list line repeats the run's
 * -p/--tenant, as commander's missing arguments do (cli.ts), read from the run's settings
 * (review27a F4: `svc --tenant B tenants api-keys revoke` pointed at the profile tenant's list).
 */
export async function keyArguments(
  make: MakeContext,
  cmd: Command,
  verb: 'get' | 'revoke',
  first: string | undefined,
  second: string | undefined,
): Promise<{ tenant: string | undefined; key: string }> {
  let settings: TargetSettings | undefined;
  if (second === undefined && !isKey(first)) {
    try {
      settings = (await make(cmd, { argumentsFirst: true })).settings();
    } catch {
      settings = undefined;
    }
  }
  return parsedUnswapped(make, cmd, () => tenantAndKey(verb, first, second, settings));
}

/**
 * The TENANT a key verb reads the key in: the one given, else the profile's (as set: its slug or
 * id), else one chosen on a terminal (pickTenant; elsewhere its usage error names `what`).
 */
export async function keyTenantRef(ctx: Context, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  return ctx.settings().values.tenant ?? (await pickTenant(ctx, undefined)).id;
}

export interface ListedKey {
  tenant: NamedTenant;
  /** The key of that id in the tenant's list (revoked keys included), if it is there. */
  key: ApiKey | undefined;
  /** Keys of the tenant the list leaves out (their roles grant what the caller lacks). */
  withheld: number;
}

/**
 * One key of a tenant, read from the tenant's list (paged; the platform has no GET of one key):
 * the key itself given instead of its id is refused before anything else (the list names its id
 * by its prefix), never sent.
 */
export async function listedKey(
  ctx: Context,
  tenantRef: string,
  id: string,
  verb: string,
): Promise<ListedKey> {
  const tenant = await resolveTenantArgument(ctx, tenantRef);
  const listed = await (await ctx.platform()).tenants.apiKeys.listEvery(tenant.id);
  const keys = listed.items;
  const withheld = listed.withheld ?? 0;
  const pasted = keys.filter((k) => k.prefix !== '' && id.startsWith(k.prefix));
  if (pasted.length === 1) {
    const { id: keyId, prefix } = pasted[0]!;
    refuseCredentialAsId(
      idInWords('API key'),
      id,
      `its id is ${keyId} (prefix ${prefix}${sym.ellipsis}): ${svcCommand(ctx.settings(), `tenants api-keys ${verb} ${shellWord(tenantRef)} ${shellWord(keyId)}`)}`,
    );
  }
  refuseCredentialAsId(
    idInWords('API key'),
    id,
    notListedHint(commandLine(ctx.settings()), tenantRef, withheld),
  );
  return { tenant, key: keys.find((k) => k.id === id), withheld };
}

/** `N more are not listed to you: …`, or empty. */
const unseen = (withheld: number) =>
  withheld > 0
    ? `${withheld} more ${withheld === 1 ? 'is' : 'are'} not listed to you: ${withheld === 1 ? 'its role grants' : 'their roles grant'} permissions you do not hold`
    : '';

/** A key id the caller's list of the tenant does not hold: not found (exit 5), one line. */
export async function keyNotListed(
  ctx: Context,
  found: ListedKey,
  tenantRef: string,
  id: string,
): Promise<never> {
  const more = unseen(found.withheld);
  throw new NotFoundError(
    `API key ${id} not found in ${await found.tenant.label()}${more ? ` among the keys you may manage (${more})` : ''}`,
    { hint: keysOf(tenantRef)(commandLine(ctx.settings())) },
  );
}

/** What to give for a pasted key the caller's list does not hold, and where to find it. */
function notListedHint(svc: CommandLine, tenantRef: string, withheld: number): string {
  const more = unseen(withheld);
  return (
    `give the key's id (key_${sym.ellipsis}) instead, as \`${svc(`tenants api-keys ls ${shellWord(tenantRef)}`)}\` shows it${more ? `: this key is not among the keys you may manage there (${more})` : ''}; ` +
    'svc did not send the secret (in a URL it would stay in proxy and server logs)'
  );
}
