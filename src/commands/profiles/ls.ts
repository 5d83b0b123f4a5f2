import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { rows } from './shared.js';

export async function runProfilesLs(ctx: Context): Promise<void> {
  await ctx.out.list(
    rows(ctx),
    [
      { header: ' ', value: (r) => (r.active ? '*' : '') },
      { header: 'name', value: (r) => r.name },
      { header: 'base url', value: (r) => r.base_url },
      { header: 'tenant', value: (r) => r.tenant },
      { header: 'credential', value: (r) => r.credential },
    ],
    { empty: 'No profiles yet. Run `svc sandbox start`, or `svc config set base_url URL`.' },
  );
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .description('List profiles; * marks the active one')
    .addHelpText('after', examples(['svc profiles ls', 'all profiles']))
    .action(async (_f: unknown, cmd: Command) => runProfilesLs(await make(cmd)));
}
