import { Command } from 'commander';
import { checkUrlSetting, ENV_FOR } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { checkKey, KEYS } from './shared.js';

export async function runConfigSet(ctx: Context, rawKey: string, rawValue: string): Promise<void> {
  const key = checkKey(rawKey);
  const value = nonEmpty('VALUE', rawValue);
  const settings = ctx.settings();
  if (key === 'base_url' || key === 'app_url') checkUrlSetting(key, value, 'profile', settings.profile);
  const store = ctx.store();
  await store.setProfileValues(settings.profile, { [key]: value });
  // The first profile anyone configures becomes the active one.
  await store.claimActiveProfile(settings.profile);
  if (ctx.out.isMachine) return ctx.out.json({ profile: settings.profile, key, value });
  ctx.out.success(`Set ${key} for profile "${settings.profile}"`);
  const shadow = settings.sources[key];
  if (shadow === 'env' || shadow === 'flag') {
    ctx.out.warn(`${shadow === 'env' ? ENV_FOR[key] : 'a flag'} overrides this value right now`);
  }
}

export function setCommand(make: MakeContext): Command {
  return new Command('set')
    .argument('<key>', KEYS)
    .argument('<value>', 'the value')
    .description('Store a setting in the profile (the first profile configured becomes the active one)')
    .addHelpText(
      'after',
      examples(
        ['svc config set base_url https://api.example.com', 'point the profile at an API'],
        ['svc -p staging config set tenant 2b4c…', 'set the tenant of the "staging" profile'],
      ),
    )
    .action(async (key: string, value: string, _f: unknown, cmd: Command) =>
      runConfigSet(await make(cmd), key, value),
    );
}
