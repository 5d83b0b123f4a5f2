import { Command } from 'commander';
import { checkProfileName } from '../../config/store.js';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { activeOverridden, existing, profileInUse } from './shared.js';

export async function runProfilesUse(ctx: Context, name: string): Promise<void> {
  existing(ctx, checkProfileName(name));
  await ctx.store().setActiveProfile(name);
  // Saying "now using" alone would not be true when SVC_PROFILE names another profile.
  const inUse = profileInUse(ctx);
  const overridden = activeOverridden(ctx.env, name);
  if (ctx.out.isMachine)
    await ctx.out.json({ active_profile: name, in_use: inUse.source === 'env' ? inUse.name : name });
  else ctx.out.success(`now using profile "${name}"`);
  if (overridden) ctx.out.warn(overridden);
}

export function useCommand(make: MakeContext): Command {
  return new Command('use')
    .argument('<name>', 'profile to make active')
    .description('Make a profile the active one')
    .addHelpText('after', examples(['svc profiles use sandbox', 'use the sandbox profile from now on']))
    .action(async (name: string, _f: unknown, cmd: Command) => runProfilesUse(await make(cmd), name));
}
