import { Command, Option } from 'commander';
import { type ApplyOptions, applyPlan } from '../../ascode/apply.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withConcurrency } from '../../system/command-scope.js';
import { BULK_CONCURRENCY, parseBulkFlags } from '../bulk-flags.js';
import { confirmDestructive, examples, type MakeContext, nonEmpty } from '../kit.js';
import { ACCESS_FILE_DURATIONS as DURATIONS, grantRunAnchor } from '../platform-clock.js';

export type ApplyFlags = Omit<ApplyOptions, 'confirm' | 'anchor'>;

export function parseApply(plan: unknown, flags: Record<string, unknown>): ApplyFlags {
  if (plan !== undefined && flags.file !== undefined) {
    throw new UsageError('give an access file with -f or a saved PLAN.json, not both');
  }
  if (plan === undefined && flags.file === undefined) {
    throw new UsageError('svc apply needs -f FILE (an access file) or PLAN.json (saved by svc plan --out)');
  }
  if (plan !== undefined && flags.createMissing === true) {
    throw new UsageError('--create-missing is for -f FILE: a saved plan has its creations in it already', {
      hint: 'plan it with svc plan -f FILE --create-missing --out PLAN.json, then svc apply PLAN.json',
    });
  }
  const bulk = parseBulkFlags(flags);
  return {
    from: plan === undefined ? { file: nonEmpty('--file', flags.file) } : { plan: nonEmpty('PLAN', plan) },
    prune: flags.prune === true,
    createMissing: flags.createMissing === true,
    secretDir: flags.secretDir === undefined ? undefined : nonEmpty('--secret-dir', flags.secretDir),
    concurrency: bulk.concurrency,
    journal: bulk.journal,
  };
}

export function runApply(ctx: Context, options: ApplyFlags): Promise<void> {
  return withConcurrency(() =>
    applyPlan(ctx, {
      ...options,
      confirm: (question, refusal) => confirmDestructive(ctx, question, refusal),
      anchor: (platform, _run, journal) => grantRunAnchor(ctx, platform, journal, DURATIONS),
    }),
  );
}

export default function applyCommand(make: MakeContext): Command {
  return new Command('apply')
    .summary('Make the live state match an access file or a saved plan')
    .description(
      'Make the live state match an access file (-f FILE, planned now) or a plan saved by svc plan --out\n' +
        '(applied only if the live state is still the one it was computed from; otherwise svc says what\n' +
        'drifted and changes nothing). Custom roles first, then grants, webhooks and OAuth clients, then\n' +
        'removals — which are made only with --prune, only within what the file manages, and never\n' +
        'one that takes away your own administration of a tenant. What takes away some of your own reach\n' +
        '(revoking your own grant, narrowing or deleting a role you hold) is made after everything else,\n' +
        'so the other changes are made with what you hold now, as svc plan judged them (it marks such\n' +
        'changes "made last"). A grant of a role whose permissions the file changes is made after that\n' +
        'change (never of the role as it was). A change that fails stops what depends on it (the\n' +
        'grants of a role not created or not changed) and nothing else.\n\n' +
        'It runs as a bulk operation: a journal (re-run the same command to resume after a crash,\n' +
        'Ctrl-C or exit 7), requests in flight at once, one result per change and a summary. Two\n' +
        'runs of one plan at once (two CI jobs) under one credential create each webhook and OAuth\n' +
        'client once; under two credentials each may create it (the platform keys creations per\n' +
        'caller), and svc plan then names both and the command that deletes one. A custom role the\n' +
        'other run created first is taken as planned when its permissions are the planned ones (its\n' +
        'grants go ahead); with other permissions it fails naming them, and its grants are not made. A plan\n' +
        "whose expiries have passed (a saved one, or a resumed run's) is refused whole (exit 6). The\n" +
        'secrets of new webhooks and OAuth clients go to --secret-dir, one 0600 file each. On a terminal\n' +
        'the plan is shown and confirmed; elsewhere pass --yes. It acts in the tenants the file (or plan)\n' +
        'names; a --tenant on the command line bounds it: a file reaching another tenant is refused (exit 2).\n' +
        "A saved plan whose tenant names are not the platform's for its tenant ids is refused (exit 2).",
    )
    .argument('[PLAN.json]', 'a plan saved by svc plan --out')
    .addOption(new Option('-f, --file <file>', 'the access file (- for stdin)'))
    .addOption(new Option('--prune', 'also remove what the file manages but does not declare'))
    .addOption(
      new Option(
        '--create-missing',
        'create the webhooks and OAuth clients whose id (an export of another tenant or platform) is not there',
      ),
    )
    .addOption(
      new Option('--secret-dir <dir>', 'where the secrets of new webhooks and OAuth clients go (0700)'),
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        `requests in flight, 1-${BULK_CONCURRENCY.max} (default ${BULK_CONCURRENCY.default})`,
      ),
    )
    .addOption(
      new Option(
        '--journal <path>',
        'where finished changes are recorded, the plan beside it in PATH.plan.json (default: state dir)',
      ),
    )
    .addHelpText(
      'after',
      examples(
        ['svc apply -f access.yaml --secret-dir ./secrets', 'plan and apply (asks on a terminal)'],
        ['svc apply plan.json --yes', 'a reviewed plan, if nothing changed since'],
        ['svc apply -f access.yaml --prune --yes', 'also remove what the file no longer declares'],
        [
          'svc apply -f export.yaml --create-missing --secret-dir ./secrets',
          'restore an export on another platform',
        ],
      ),
    )
    .action(async (plan: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      await runApply(await make(cmd), parseApply(plan, flags));
    });
}
