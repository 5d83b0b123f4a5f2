import { Command } from 'commander';
import { ENV_FOR } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { examples, type MakeContext, profileAt } from '../kit.js';
import { checkKey, KEYS } from './shared.js';

export async function runConfigUnset(ctx: Context, rawKey: string): Promise<void> {
  const key = checkKey(rawKey);
  const settings = ctx.ownProfileSettings();
  const profile = settings.profile;
  // The server the profile is for (its own, not an override's): once base_url is unset, the one it had.
  const stored = ctx.store().profile(profile)?.base_url;
  const was = await ctx.store().unsetProfileValue(profile, key);
  if (ctx.out.isMachine) return ctx.out.json({ profile, key, value: null, changed: was });
  if (was) ctx.out.success(`unset ${key} for ${profileAt(profile, stored, key === 'base_url')}`);
  else ctx.out.info(`nothing changed: ${key} was not set in profile "${profile}"`);
  const shadow = settings.sources[key];
  if (shadow === 'env' || shadow === 'flag') {
    ctx.out.warn(`${shadow === 'env' ? ENV_FOR[key] : 'a flag'} still sets ${key} right now`);
  }
}

export function unsetCommand(make: MakeContext): Command {
  return new Command('unset')
    .argument('<key>', KEYS)
    .description(
      'Remove a setting from the profile (a key that was not set: "nothing changed", exit 0). An environment\n' +
        'variable or flag that sets it still does, with a warning.',
    )
    .addHelpText('after', examples(['svc config unset org', 'stop sending X-SVC-Org-Id']))
    .action(async (key: string, _f: unknown, cmd: Command) => runConfigUnset(await make(cmd), key));
}
