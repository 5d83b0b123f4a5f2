import { Command } from 'commander';
import { profileFlag, savedUrlProblem, settingPlaceholder } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { examples, type MakeContext } from '../kit.js';
import { checkKey, KEYS } from './shared.js';

export async function runConfigGet(ctx: Context, rawKey: string): Promise<void> {
  const key = checkKey(rawKey);
  const settings = ctx.ownProfileSettings();
  const value = settings.values[key];
  if (value === undefined) {
    throw new NotFoundError(`${key} is not set for profile "${settings.profile}"`, {
      hint: `set it with \`svc ${profileFlag(settings)}config set ${key} ${settingPlaceholder(key)}\``,
    });
  }
  // A profile's base or app URL holding a user name, password or query (saved by an older svc) is not printed: it may hold a credential.
  // An app_url that is the base URL (no app_url set) is mended by setting base_url.
  const problem =
    key === 'base_url' || key === 'app_url'
      ? savedUrlProblem(key, value, settings.sources[key] ?? 'profile', settings)
      : undefined;
  if (problem !== undefined) throw problem;
  if (ctx.out.isMachine) return ctx.out.json({ key, value, source: settings.sources[key] });
  await ctx.out.text(value);
}

export function getCommand(make: MakeContext): Command {
  return new Command('get')
    .argument('<key>', KEYS)
    .description('Print the value of one setting')
    .addHelpText('after', examples(['svc config get base_url', 'the API base URL in effect']))
    .action(async (key: string, _f: unknown, cmd: Command) => runConfigGet(await make(cmd), key));
}
