import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { existing } from './shared.js';

export async function runProfilesShow(ctx: Context, name: string | undefined): Promise<void> {
  const row = existing(ctx, name ?? ctx.settings().profile);
  await ctx.out.record(row, [
    ['name', `${row.name}${row.active ? ' (active)' : ''}`],
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
