import { Command } from 'commander';
import { checkProfileName } from '../../config/store.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { maskSecret } from '../../output/format.js';
import { confirmDestructive, examples, type MakeContext } from '../kit.js';

interface ProfileRow {
  name: string;
  active: boolean;
  base_url: string | null;
  app_url: string | null;
  tenant: string | null;
  org: string | null;
  client_id: string | null;
  credential: string | null;
}

function rows(ctx: Context): ProfileRow[] {
  const store = ctx.store();
  const active = store.activeProfile();
  const profiles = store.profiles();
  return Object.keys(profiles)
    .sort()
    .map((name) => {
      const p = profiles[name] ?? {};
      const credential = store.credential(name);
      return {
        name,
        active: name === active,
        base_url: p.base_url ?? null,
        app_url: p.app_url ?? null,
        tenant: p.tenant ?? null,
        org: p.org ?? null,
        client_id: p.client_id ?? null,
        credential: credential ? `${credential.type} ${maskSecret(credential.access_token)}` : null,
      };
    });
}

function existing(ctx: Context, name: string): ProfileRow {
  const row = rows(ctx).find((r) => r.name === name);
  if (!row) {
    throw new NotFoundError(`no profile named "${name}"`, {
      hint: `see \`svc profiles ls\`; create one with \`svc config set -p ${name} base_url URL\``,
    });
  }
  return row;
}

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

export async function runProfilesUse(ctx: Context, name: string): Promise<void> {
  existing(ctx, checkProfileName(name));
  await ctx.store().setActiveProfile(name);
  if (ctx.out.isMachine) return ctx.out.json({ active_profile: name });
  ctx.out.success(`Now using profile "${name}"`);
}

export async function runProfilesShow(ctx: Context, name: string | undefined): Promise<void> {
  const row = existing(ctx, name ?? ctx.settings().profile);
  await ctx.out.record(row, [
    ['name', `${row.name}${row.active ? ' (active)' : ''}`],
    ['base_url', row.base_url],
    ['app_url', row.app_url],
    ['tenant', row.tenant],
    ['org', row.org],
    ['client_id', row.client_id],
    ['credential', row.credential],
  ]);
}

export async function runProfilesRm(ctx: Context, name: string): Promise<void> {
  existing(ctx, checkProfileName(name));
  await confirmDestructive(
    ctx,
    `Remove profile "${name}" and its stored credential?`,
    `removing profile "${name}"`,
  );
  await ctx.store().removeProfile(name);
  if (ctx.out.isMachine) return ctx.out.json({ removed: name });
  ctx.out.success(`Removed profile "${name}"`);
}

export default function profiles(make: MakeContext): Command {
  const group = new Command('profiles').description(
    'Profiles: named sets of settings (base URL, tenant, org, client id) with their own credential',
  );
  group
    .command('ls')
    .alias('list')
    .description('List profiles; * marks the active one')
    .addHelpText('after', examples(['svc profiles ls', 'all profiles']))
    .action(async (_f: unknown, cmd: Command) => runProfilesLs(await make(cmd)));
  group
    .command('use')
    .argument('<name>', 'profile to make active')
    .description('Make a profile the active one')
    .addHelpText('after', examples(['svc profiles use sandbox', 'use the sandbox profile from now on']))
    .action(async (name: string, _f: unknown, cmd: Command) => runProfilesUse(await make(cmd), name));
  group
    .command('show')
    .argument('[name]', 'profile to show (default: the one in use)')
    .description("Show a profile's settings and its masked credential")
    .addHelpText(
      'after',
      examples(['svc profiles show', 'the profile in use'], ['svc profiles show prod', 'another']),
    )
    .action(async (name: string | undefined, _f: unknown, cmd: Command) =>
      runProfilesShow(await make(cmd), name),
    );
  group
    .command('rm')
    .alias('remove')
    .argument('<name>', 'profile to remove')
    .description('Remove a profile and its stored credential (asks first; --yes when not on a terminal)')
    .addHelpText('after', examples(['svc profiles rm old --yes', 'remove without asking']))
    .action(async (name: string, _f: unknown, cmd: Command) => runProfilesRm(await make(cmd), name));
  return group;
}
