import { Command } from 'commander';
import { checkUrlSetting, ENV_FOR } from '../../config/settings.js';
import { PROFILE_KEYS, type ProfileKey } from '../../config/store.js';
import type { Context } from '../../context.js';
import { NotFoundError, UsageError } from '../../errors.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';

function checkKey(key: string): ProfileKey {
  if (!(PROFILE_KEYS as readonly string[]).includes(key)) {
    throw new UsageError(`unknown setting ${JSON.stringify(key)}; settings are ${PROFILE_KEYS.join(', ')}`);
  }
  return key as ProfileKey;
}

export async function runConfigLs(ctx: Context): Promise<void> {
  const settings = ctx.settings();
  const rows = PROFILE_KEYS.map((key) => ({
    key,
    value: settings.values[key] ?? null,
    source: settings.sources[key] ?? null,
  }));
  if (!ctx.out.isMachine) ctx.out.info(`Profile "${settings.profile}" (${settings.profileSource})`);
  await ctx.out.list(rows, [
    { header: 'key', value: (r) => r.key },
    { header: 'value', value: (r) => r.value },
    { header: 'source', value: (r) => (r.source === 'env' ? ENV_FOR[r.key] : r.source) },
  ]);
}

export async function runConfigGet(ctx: Context, rawKey: string): Promise<void> {
  const key = checkKey(rawKey);
  const settings = ctx.settings();
  const value = settings.values[key];
  if (value === undefined) {
    throw new NotFoundError(`${key} is not set for profile "${settings.profile}"`, {
      hint: `set it with \`svc config set ${key} VALUE\``,
    });
  }
  if (ctx.out.isMachine) return ctx.out.json({ key, value, source: settings.sources[key] });
  await ctx.out.text(value);
}

export async function runConfigSet(ctx: Context, rawKey: string, rawValue: string): Promise<void> {
  const key = checkKey(rawKey);
  const value = nonEmpty('VALUE', rawValue);
  const settings = ctx.settings();
  if (key === 'base_url' || key === 'app_url') checkUrlSetting(key, value, 'profile', settings.profile);
  const store = ctx.store();
  await store.setProfileValues(settings.profile, { [key]: value });
  // The first profile anyone configures becomes the active one (decided under the file's lock).
  await store.claimActiveProfile(settings.profile);
  if (ctx.out.isMachine) return ctx.out.json({ profile: settings.profile, key, value });
  ctx.out.success(`Set ${key} for profile "${settings.profile}"`);
  const shadow = settings.sources[key];
  if (shadow === 'env' || shadow === 'flag') {
    ctx.out.warn(`${shadow === 'env' ? ENV_FOR[key] : 'a flag'} overrides this value right now`);
  }
}

export async function runConfigUnset(ctx: Context, rawKey: string): Promise<void> {
  const key = checkKey(rawKey);
  const profile = ctx.settings().profile;
  await ctx.store().unsetProfileValue(profile, key);
  if (ctx.out.isMachine) return ctx.out.json({ profile, key, value: null });
  ctx.out.success(`Unset ${key} for profile "${profile}"`);
}

export default function config(make: MakeContext): Command {
  const keys = PROFILE_KEYS.join(', ');
  const group = new Command('config').description(
    `Settings of a profile: ${keys}.\nPrecedence: flag > environment variable > profile.`,
  );
  group
    .command('ls')
    .alias('list')
    .description('Show every setting in effect and where it comes from')
    .addHelpText(
      'after',
      examples(['svc config ls', 'settings of the profile in use'], ['svc -p prod config ls', 'of another']),
    )
    .action(async (_f: unknown, cmd: Command) => runConfigLs(await make(cmd)));
  group
    .command('get')
    .argument('<key>', keys)
    .description('Print the value of one setting')
    .addHelpText('after', examples(['svc config get base_url', 'the API base URL in effect']))
    .action(async (key: string, _f: unknown, cmd: Command) => runConfigGet(await make(cmd), key));
  group
    .command('set')
    .argument('<key>', keys)
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
  group
    .command('unset')
    .argument('<key>', keys)
    .description('Remove a setting from the profile')
    .addHelpText('after', examples(['svc config unset org', 'stop sending X-SVC-Org-Id']))
    .action(async (key: string, _f: unknown, cmd: Command) => runConfigUnset(await make(cmd), key));
  return group;
}
