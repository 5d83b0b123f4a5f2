import { Command, Option } from 'commander';
import { didYouMean } from '../../api/suggest.js';
import { tenantByRef } from '../../api/tenant-id.js';
import { isoSeconds } from '../../api/time.js';
import { exportDocument, exportYaml, secretValues, urlsWithSecrets, writesIds } from '../../ascode/export.js';
import { readLive, sayUndescribed, type TenantInfo } from '../../ascode/live.js';
import { MANAGE_KINDS, type ManagedKind } from '../../ascode/schema.js';
import { seenButNotHeld, visibleTenants } from '../../ascode/visible.js';
import { commandLine, inTenant } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { SvcError, UsageError } from '../../errors.js';
import { counted, quoted, timeSpan } from '../../output/format.js';
import { platformTime } from '../../platform/clock.js';
import { writeFileWhole, writesInto } from '../../system/user-output-file.js';
import { examples, type MakeContext, nonEmpty, severalTenants } from '../kit.js';

export interface ExportOptions {
  /** Tenants by slug or id; empty: the profile's tenant (unless allTenants). */
  tenants: string[];
  allTenants: boolean;
  /** Where to write (.json: JSON, else YAML); undefined: stdout. */
  output: string | undefined;
  /** The kinds to write and manage (--only); every kind by default. */
  kinds: ManagedKind[];
}

/** --only roles,grants (commas, or the flag repeated): each a kind of the file's `manage`. */
function parseOnly(values: unknown): ManagedKind[] {
  if (values === undefined) return [...MANAGE_KINDS];
  const words = (values as string[]).flatMap((v) => v.split(',')).map((w) => w.trim());
  for (const word of words) {
    if (!(MANAGE_KINDS as readonly string[]).includes(word)) {
      throw new UsageError(
        `--only takes roles, grants, webhooks or oauth_clients, got ${quoted(word)}${didYouMean(word, MANAGE_KINDS)}`,
      );
    }
  }
  return MANAGE_KINDS.filter((kind) => words.includes(kind));
}

export function parseExport(flags: Record<string, unknown>, globals: { tenants?: string[] }): ExportOptions {
  const tenants = (globals.tenants ?? []).map((t) => nonEmpty('--tenant', t));
  const allTenants = flags.allTenants === true;
  if (allTenants && tenants.length > 0)
    throw new UsageError('--tenant and --all-tenants cannot be combined; pick one');
  const output = flags.output === undefined ? undefined : nonEmpty('--output', flags.output);
  return { tenants: [...new Set(tenants)], allTenants, output, kinds: parseOnly(flags.only) };
}

/** The tenants to export, as the caller knows them (their credential's tenants, from /v1/me). */
async function chooseTenants(ctx: Context, options: ExportOptions): Promise<TenantInfo[]> {
  const me = await (await ctx.platform()).me.get({ signal: ctx.signal, tenant: null });
  const mine: TenantInfo[] = me.tenants.map((t) => ({
    id: t.id,
    slug: t.slug,
    display_name: t.display_name,
    role: t.role,
  }));
  if (options.allTenants) {
    const administered = mine.filter((t) => t.role === 'tenant_admin');
    if (administered.length === 0)
      throw new UsageError('--all-tenants found no tenant where you are tenant_admin');
    return administered;
  }
  const wanted =
    options.tenants.length > 0 ? options.tenants : [ctx.settings().values.tenant ?? me.tenant_id ?? ''];
  const platform = await ctx.platform();
  const seen = await visibleTenants(
    platform,
    wanted.filter((ref) => !tenantByRef(mine, ref)),
    ctx.signal,
  );
  const chosen = wanted.map((ref) => {
    const tenant = tenantByRef(mine, ref);
    const visible = seen.get(ref);
    if (!tenant && visible) {
      throw new SvcError('forbidden', seenButNotHeld(ref, visible), {
        code: 'tenant_not_held',
        hint: `ask a tenant_admin of ${visible.slug} for a role, then log in again so your credential names the tenant`,
      });
    }
    if (!tenant) {
      throw new UsageError(
        `tenant ${quoted(ref)} is not one of your tenants${didYouMean(
          ref,
          mine.map((t) => t.slug),
        )}`,
        { hint: 'svc tenants ls lists them' },
      );
    }
    return tenant;
  });
  // One tenant given by its slug and by its id is one tenant, counted and named once.
  return [...new Map(chosen.map((t) => [t.id, t])).values()];
}

/**
 * When the file was read, on the platform's clock: every expires_at in it is on that clock (an
 * export is a view of grants that end on it), so its time is too, named as such when this
 * machine's is off by more than a minute (platformTime; the reads have told svc the offset).
 */
async function exportTime(ctx: Context): Promise<string> {
  const machine = ctx.clock.now();
  const at = platformTime(await ctx.platform(), machine);
  if (at === machine) return isoSeconds(at);
  const offset = at - machine;
  return `${isoSeconds(at)} on the platform's clock (${timeSpan(offset)} ${offset > 0 ? 'ahead of' : 'behind'} this machine's)`;
}

export async function runExport(ctx: Context, options: ExportOptions): Promise<void> {
  const tenants = await chooseTenants(ctx, options);
  const reads = {
    webhooks: options.kinds.includes('webhooks'),
    clients: options.kinds.includes('oauth_clients'),
  };
  const live = [...(await readLive(await ctx.platform(), tenants, ctx.signal, reads)).values()];
  sayUndescribed(
    live,
    (m) => ctx.out.warn(m),
    (one) => `${one ? 'it is' : 'they are'} exported without one`,
    () => options.kinds.includes('roles'),
  );
  const doc = exportDocument(live, options.kinds);
  const secrets = secretValues(doc, live, (tenant) => commandLine(inTenant(ctx.settings(), tenant)));
  if (secrets.length > 0) {
    for (const s of secrets)
      ctx.out.info(`${s.tenant}: ${s.kind} ${s.name}: "${s.field}" looks like a secret; fix: ${s.fix}`);
    throw new UsageError(
      `${counted(secrets.length, 'value')} of the live state ${secrets.length === 1 ? 'looks like a secret' : 'look like secrets'}, which svc never writes to a file (and svc plan would refuse); nothing was written`,
      { code: 'secret_in_live_state', hint: 'change them on the platform (see above), then export again' },
    );
  }
  // A webhook's URL and a client's redirect URI are written as the platform has them, query and
  // all: say so when one carries a secret (urlsWithSecrets). The file is written 0600, with a
  // secret seen or not (writeFileWhole: attack25b L5); stdout is the caller's to keep private.
  // A pipe or device of the user's is written into as it is (writesInto; another user's is
  // refused here, before a word of it): svc makes no file there, 0600 or not (attack17 A5).
  const keep =
    options.output === undefined || writesInto(options.output, '--output')
      ? 'keep the file private'
      : 'it is written 0600 (only you can read it); keep it private';
  const urlSecrets = urlsWithSecrets(live, options.kinds);
  for (const { tenant, what } of urlSecrets)
    ctx.out.warn(
      `${tenant}: ${what} carries a secret in it, and the file holds it as the platform has it: ${keep}`,
    );
  const json =
    options.output === undefined ? ctx.out.isMachine : options.output.toLowerCase().endsWith('.json');
  const names = tenants.map((t) => `${t.display_name} (${t.slug})`).join(', ');
  const at = await exportTime(ctx);
  const text = json
    ? `${JSON.stringify(doc, null, 2)}\n`
    : exportYaml(doc, live, [
        `svc export of ${names} at ${at}`,
        'svc plan -f FILE shows how the live state differs from this file; svc apply -f FILE makes it match.',
        ...(writesIds(doc)
          ? [
              'Ids tell webhooks of one URL (clients of one name) apart; elsewhere, --create-missing creates them.',
            ]
          : []),
      ]);
  const grants = live.reduce((sum, t) => sum + t.grants.size, 0);
  const roles = live.reduce(
    (sum, t) => sum + [...t.roles.values()].filter((r) => r.kind === 'custom').length,
    0,
  );
  const webhooks = live.reduce((sum, t) => sum + t.webhooks.length, 0);
  const clients = live.reduce((sum, t) => sum + t.clients.length, 0);
  const counts: Record<ManagedKind, string> = {
    roles: counted(roles, 'custom role'),
    grants: counted(grants, 'grant'),
    webhooks: counted(webhooks, 'webhook'),
    oauth_clients: counted(clients, 'OAuth client'),
  };
  const what = `${options.kinds.map((kind) => counts[kind]).join(', ')} of ${counted(tenants.length, 'tenant')}`;
  // A list that changed while svc read it (an item repeated, kept once; an unstable order can
  // also leave one out): said once, before the outcome (brief paging22 2).
  const platform = await ctx.platform();
  if (options.output === undefined) {
    await ctx.out.document(text);
    platform.sayTwice((note) => ctx.out.warn(note), 'kept');
    ctx.out.info(`exported ${what}`);
    return;
  }
  writeFileWhole(options.output, text, '--output', ctx.clock.sleepSync);
  platform.sayTwice((note) => ctx.out.warn(note), 'kept');
  ctx.out.success(`exported ${what} to ${options.output}`);
}

export default function exportCommand(make: MakeContext): Command {
  const command = new Command('export')
    .summary('Write the live access and integrations of tenants as a file for svc plan and apply')
    .description(
      'Write the custom roles, role grants, webhooks and OAuth clients of tenants as an access file\n' +
        '(YAML, or JSON with --json or a .json --output), which svc plan compares with the live state\n' +
        'and svc apply makes real. svc plan of an export shows no changes. Secrets are never written,\n' +
        "but a webhook's URL and an OAuth client's redirect URIs as the platform has them (a token in a\n" +
        'query or path too: svc warns of one). The file is written 0600 (only you can read or change it).\n\n' +
        'Tenants: --tenant (repeat it), --all-tenants (every tenant where you are tenant_admin), or\n' +
        "the profile's tenant.",
    )
    .addOption(new Option('--all-tenants', 'every tenant where you are tenant_admin'))
    .addOption(new Option('-o, --output <file>', 'write here (.json: JSON, else YAML) instead of stdout'))
    .addOption(
      new Option(
        '--only <kinds...>',
        'only these kinds, written and managed: roles, grants, webhooks, oauth_clients (commas or repeated)',
      ),
    )
    .addHelpText(
      'after',
      examples(
        ['svc export -o access.yaml', "the profile's tenant"],
        ['svc export --tenant acme-treasury --tenant acme-apac -o access.yaml', 'two tenants'],
        ['svc export --all-tenants --json > access.json', 'every tenant you administer, as JSON'],
        ['svc export --only roles,grants -o access.yaml', 'access only (reads no webhooks or OAuth clients)'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await make(cmd);
      await runExport(ctx, parseExport(flags, ctx.globals));
    });
  return severalTenants(command);
}
