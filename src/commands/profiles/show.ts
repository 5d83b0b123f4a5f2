import { Command } from 'commander';
import { profileOption } from '../../config/settings.js';
import { credentialAsProfileName } from '../../config/store.js';
import type { Context } from '../../context.js';
import { shellWord } from '../../system/shell-words.js';
import { examples, type MakeContext } from '../kit.js';
import { CREDENTIAL_NAMED_PROFILE, existing, overrideNote, profileInUse, profileRow } from './shared.js';

export async function runProfilesShow(ctx: Context, name: string | undefined): Promise<void> {
  const inUse = profileInUse(ctx);
  const shownName = name ?? inUse.name;
  // A profile an older svc saved under a credential's name (the active one, maybe): shown masked,
  // with how to remove it, not refused as if the credential had just been typed.
  const older = credentialAsProfileName(shownName) !== undefined && ctx.store().hasProfile(shownName);
  const row = older ? profileRow(ctx, shownName) : existing(ctx, shownName);
  const by = inUse.source === 'flag' ? profileOption(inUse.name) : `SVC_PROFILE=${shellWord(inUse.name)}`;
  const why =
    inUse.source === 'flag' ? '-p' : inUse.source === 'env' ? 'SVC_PROFILE' : 'no profile is active';
  const state = row.active
    ? row.in_use
      ? ' (active)'
      : ` (active; not in use: ${by})`
    : row.in_use
      ? ` (in use: ${why})`
      : '';
  const overrides = overrideNote(ctx);
  if (overrides !== undefined && !ctx.out.isMachine) ctx.out.info(overrides);
  if (older) ctx.out.warn(CREDENTIAL_NAMED_PROFILE);
  await ctx.out.record(row, [
    ['name', `${row.name}${state}`],
    ['base_url', row.base_url],
    ['app_url', row.app_url],
    ['tenant', row.tenant],
    ['org', row.org],
    ['client_id', row.client_id],
    ['credential', row.credential],
  ]);
}

export function showCommand(make: MakeContext): Command {
  return new Command('show')
    .argument('[name]', 'profile to show (default: the one in use)')
    .description("Show a profile's settings and its masked credential")
    .addHelpText(
      'after',
      examples(['svc profiles show', 'the profile in use'], ['svc profiles show prod', 'another']),
    )
    .action(async (name: string | undefined, _f: unknown, cmd: Command) =>
      runProfilesShow(await make(cmd), name),
    );
}
