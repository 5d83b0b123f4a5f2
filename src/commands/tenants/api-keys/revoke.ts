import { Command } from 'commander';
import { type CommandLine, commandLine, svcCommand } from '../../../config/settings.js';
import type { Context } from '../../../context.js';
import { idInWords, refuseCredentialAsId } from '../../../http/path.js';
import { sym } from '../../../output/symbols.js';
import { ApiKeyNotFoundError, keysOf, retyped } from '../../../platform/errors.js';
import { shellWord } from '../../../system/shell-words.js';
import { confirmDestructive, deleted, examples, type MakeContext, nonEmpty } from '../../kit.js';
import { resolveTenant } from '../../pick.js';

export async function runApiKeyRevoke(ctx: Context, tenantRef: string, keyId: string): Promise<void> {
  const id = nonEmpty('KEY', keyId);
  const tenant = await resolveTenant(ctx, tenantRef);
  const platform = await ctx.platform();
  // The platform's revoke of a revoked key answers as if it had revoked it: look first.
  const listed = await platform.tenants.apiKeys.list(tenant.id);
  const keys = listed.items;
  // The key itself instead of its id: the list says which key it is, by its prefix.
  const pasted = keys.filter((k) => k.prefix !== '' && id.startsWith(k.prefix));
  if (pasted.length === 1) {
    const { id: keyId, prefix } = pasted[0]!;
    refuseCredentialAsId(
      idInWords('API key'),
      id,
      `its id is ${keyId} (prefix ${prefix}${sym.ellipsis}): ${svcCommand(ctx.settings(), `tenants api-keys revoke ${shellWord(tenantRef)} ${shellWord(keyId)}`)}`,
    );
  }
  refuseCredentialAsId(
    idInWords('API key'),
    id,
    notListedHint(commandLine(ctx.settings()), tenantRef, listed.withheld ?? 0),
  );
  const before = keys.find((k) => k.id === id);
  if (before?.revoked_at) {
    if (ctx.out.isMachine) return ctx.out.json({ ...before, outcome: 'already_revoked' });
    ctx.out.info(
      `Nothing changed: API key ${id} (${before.name}) of ${await tenant.label()} was revoked already, at ${before.revoked_at}.`,
    );
    return;
  }
  await confirmDestructive(
    ctx,
    async () => `Revoke API key ${id} of ${await tenant.label()}? Anything using it stops working.`,
    `revoking ${id}`,
  );
  const revoke = platform.tenants.apiKeys.revoke(tenant.id, id).catch((error: unknown) => {
    throw error instanceof ApiKeyNotFoundError
      ? retyped(error, ApiKeyNotFoundError, keysOf(tenantRef)(commandLine(ctx.settings())))
      : error;
  });
  const data = await deleted(ctx, revoke, {
    act: 'revoke',
    thing: 'the key',
    done: 'revoked',
    subject: `API key ${id} of ${await tenant.label()} is gone`,
    target: { id, tenant_id: tenant.id },
  });
  if (data === undefined) return;
  // One shape whatever the outcome (README): `outcome` says which, as `records delete --json` does.
  if (ctx.out.isMachine) return ctx.out.json({ ...data, outcome: 'revoked' });
  ctx.out.success(`Revoked ${data.id} (${data.name}) of ${await tenant.label()}`);
}

/** What to give for a pasted key the caller's list does not hold, and where to find it. */
function notListedHint(svc: CommandLine, tenantRef: string, withheld: number): string {
  const unseen =
    withheld > 0
      ? `: this key is not among the keys you may manage there (${withheld} more ${withheld === 1 ? 'is' : 'are'} not listed to you: ${withheld === 1 ? 'its role grants' : 'their roles grant'} permissions you do not hold)`
      : '';
  return (
    `give the key's id (key_${sym.ellipsis}) instead, as \`${svc(`tenants api-keys ls ${shellWord(tenantRef)}`)}\` shows it${unseen}; ` +
    'svc did not send the secret (in a URL it would stay in proxy and server logs)'
  );
}

export function revokeCommand(make: MakeContext): Command {
  return new Command('revoke')
    .argument('<tenant>', 'tenant id or slug')
    .argument('<key-id>', 'the key id (key_…)')
    .description(
      'Revoke an API key at once (asks first; --yes when not on a terminal).\n' +
        'With --json: the key record and "outcome": "revoked", or "already_revoked" (nothing changed, exit 0),\n' +
        'or "gone_after_lost_answer" (an answer was lost and the key is revoked now).',
    )
    .addHelpText(
      'after',
      examples(['svc tenants api-keys revoke acme-treasury key_3f2a… --yes', 'revoke a key']),
    )
    .action(async (tenant: string, key: string, _flags: unknown, cmd: Command) =>
      runApiKeyRevoke(await make(cmd), nonEmpty('TENANT', tenant), key),
    );
}
