import { Command } from 'commander';
import { checkProfileName } from '../../config/store.js';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { existing, profileInUse } from './shared.js';

/**
 * SVC_PROFILE beats the active profile: when it names another one than `name`, just made active
 * (profiles use, sandbox start), the words that say commands in this shell do not use `name`.
 */
export function activeOverridden(env: Context['env'], name: string): string | undefined {
  const set = env.SVC_PROFILE;
  return set && set !== name
    ? `SVC_PROFILE=${set} is set and overrides the active profile in this shell: commands here still use "${set}" until you unset it`
    : undefined;
}

export async function runProfilesUse(ctx: Context, name: string): Promise<void> {
  existing(ctx, checkProfileName(name));
  await ctx.store().setActiveProfile(name);
  // Saying "now using" alone would not be true when SVC_PROFILE names another profile.
  const inUse = profileInUse(ctx);
  const overridden = activeOverridden(ctx.env, name);
  if (ctx.out.isMachine)
    await ctx.out.json({ active_profile: name, in_use: inUse.source === 'env' ? inUse.name : name });
  else ctx.out.success(`Now using profile "${name}"`);
  if (overridden) ctx.out.warn(overridden);
}

export function useCommand(make: MakeContext): Command {
  return new Command('use')
    .argument('<name>', 'profile to make active')
    .description('Make a profile the active one')
    .addHelpText('after', examples(['svc profiles use sandbox', 'use the sandbox profile from now on']))
    .action(async (name: string, _f: unknown, cmd: Command) => runProfilesUse(await make(cmd), name));
}
