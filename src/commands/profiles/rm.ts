import { Command } from 'commander';
import { checkProfileName } from '../../config/store.js';
import type { Context } from '../../context.js';
import { confirmDestructive, examples, type MakeContext } from '../kit.js';
import { existing } from './shared.js';

export async function runProfilesRm(ctx: Context, name: string): Promise<void> {
  existing(ctx, checkProfileName(name));
  await confirmDestructive(
    ctx,
    `Remove profile "${name}" and its stored credential?`,
    `removing profile "${name}"`,
  );
  await ctx.store().removeProfile(name);
  if (ctx.out.isMachine) return ctx.out.json({ removed: name });
  ctx.out.success(`Removed profile "${name}"`);
}

export function rmCommand(make: MakeContext): Command {
  return new Command('rm')
    .alias('remove')
    .argument('<name>', 'profile to remove')
    .description('Remove a profile and its stored credential (asks first; --yes when not on a terminal)')
    .addHelpText('after', examples(['svc profiles rm old --yes', 'remove without asking']))
    .action(async (name: string, _f: unknown, cmd: Command) => runProfilesRm(await make(cmd), name));
}
