import { Command } from 'commander';
import { ENV_FOR, type SettingSource, shownSetting } from '../../config/settings.js';
import { PROFILE_KEYS } from '../../config/store.js';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';

/** Where the profile in use came from, named as the table names a setting's source. */
const PROFILE_FROM: Record<SettingSource, string> = {
  flag: '-p',
  env: 'SVC_PROFILE',
  profile: 'active profile',
  default: 'no profile is active',
};

export async function runConfigLs(ctx: Context): Promise<void> {
  const settings = ctx.ownProfileSettings();
  const rows = PROFILE_KEYS.map((key) => ({
    key,
    value: settings.values[key] === undefined ? null : shownSetting(key, settings.values[key]),
    source: settings.sources[key] ?? null,
  }));
  if (!ctx.out.isMachine)
    ctx.out.info(`profile "${settings.profile}" (${PROFILE_FROM[settings.profileSource]})`);
  await ctx.out.list(rows, [
    { header: 'key', value: (r) => r.key },
    { header: 'value', value: (r) => r.value },
    { header: 'source', value: (r) => (r.source === 'env' ? ENV_FOR[r.key] : r.source) },
  ]);
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .description('Show every setting in effect and where it comes from')
    .addHelpText(
      'after',
      examples(['svc config ls', 'settings of the profile in use'], ['svc -p prod config ls', 'of another']),
    )
    .action(async (_f: unknown, cmd: Command) => runConfigLs(await make(cmd)));
}
