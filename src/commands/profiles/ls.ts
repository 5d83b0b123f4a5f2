import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { inUseNote, overrideNote, rows } from './shared.js';

export async function runProfilesLs(ctx: Context): Promise<void> {
  const note = rows(ctx).length === 0 ? undefined : inUseNote(ctx);
  if (note !== undefined && !ctx.out.isMachine) ctx.out.info(note);
  const overrides = rows(ctx).length === 0 ? undefined : overrideNote(ctx);
  if (overrides !== undefined && !ctx.out.isMachine) ctx.out.info(overrides);
  await ctx.out.list(
    rows(ctx),
    [
      // * the active profile; > the one in force instead of it (-p, SVC_PROFILE, or "default").
      { header: ' ', value: (r) => (r.active ? '*' : r.in_use ? '>' : '') },
      { header: 'name', value: (r) => r.name, kind: 'name' },
      { header: 'base url', value: (r) => r.base_url },
      { header: 'tenant', value: (r) => r.tenant },
      { header: 'credential', value: (r) => r.credential },
    ],
    { empty: 'no profiles yet: run `svc sandbox start`, or `svc config set base_url URL`' },
  );
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .description(
      'List profiles; * marks the active one, and > the one in force instead of it (-p, SVC_PROFILE, or\n' +
        '"default" when no profile is active), with a line on stderr saying why',
    )
    .addHelpText('after', examples(['svc profiles ls', 'all profiles']))
    .action(async (_f: unknown, cmd: Command) => runProfilesLs(await make(cmd)));
}
