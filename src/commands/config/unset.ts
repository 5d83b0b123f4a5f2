import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { checkKey, KEYS } from './shared.js';

export async function runConfigUnset(ctx: Context, rawKey: string): Promise<void> {
  const key = checkKey(rawKey);
  const profile = ctx.profileSettings().profile;
  await ctx.store().unsetProfileValue(profile, key);
  if (ctx.out.isMachine) return ctx.out.json({ profile, key, value: null });
  ctx.out.success(`Unset ${key} for profile "${profile}"`);
}

export function unsetCommand(make: MakeContext): Command {
  return new Command('unset')
    .argument('<key>', KEYS)
    .description('Remove a setting from the profile')
    .addHelpText('after', examples(['svc config unset org', 'stop sending X-SVC-Org-Id']))
    .action(async (key: string, _f: unknown, cmd: Command) => runConfigUnset(await make(cmd), key));
}
