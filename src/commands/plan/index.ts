import { realpathSync } from 'node:fs';
import { Command, Option } from 'commander';
import { computePlan, readFile } from '../../ascode/engine.js';
import { REFUSAL_REASONS } from '../../ascode/lockout.js';
import { countChanges, type PlanDocument } from '../../ascode/plan.js';
import { labelledChange, planLines, planRows, summaryLine, urlSecretIn } from '../../ascode/render.js';
import { withCompactHeap } from '../../bulk/heap.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { ChangesPendingError, ClosedPipeError, SvcError, UsageError } from '../../errors.js';
import type { Platform } from '../../platform/index.js';
import { fromPipe } from '../../system/cut-short.js';
import { PLAN_INPUT_LIMIT, readInputBytes, sayReadingTerminal } from '../../system/input.js';
import { shellWord } from '../../system/shell-words.js';
import { OutputReaderGoneError, writeFileWhole } from '../../system/user-output-file.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { ACCESS_FILE_DURATIONS, runAnchor } from '../platform-clock.js';

export interface PlanOptions {
  file: string;
  /** Where to save the plan document for `svc apply PLAN.json`. */
  out: string | undefined;
  /** Entries whose webhook or client id is not in the tenant are created (restoring an export elsewhere). */
  createMissing: boolean;
}

export function parsePlan(flags: Record<string, unknown>): PlanOptions {
  if (flags.file === undefined)
    throw new UsageError('svc plan needs -f FILE (an access file; svc export writes one)');
  return {
    file: nonEmpty('--file', flags.file),
    out: flags.out === undefined ? undefined : outFile(nonEmpty('--out', flags.out)),
    createMissing: flags.createMissing === true,
  };
}

/** --out names a file: `-` is not stdout there (--json is), and would be a file named `-`. */
function outFile(out: string): string {
  if (out === '-') {
    throw new UsageError('--out - would not write the plan on stdout: --out takes a file', {
      hint: 'svc plan --json prints the plan document on stdout, e.g. svc plan -f FILE --json | svc apply - --yes',
    });
  }
  return out;
}

/**
 * Checks the file, compares it with the live state and prints the difference. Only reads:
 * nothing is changed. Exit 10 when changes are pending (ChangesPendingError), 0 when none.
 * `planLimit`: the largest plan --out saves, what svc apply reads (a parameter so that the refusal
 * can be tried without a 256 MiB plan).
 */
export async function runPlan(
  ctx: Context,
  options: PlanOptions,
  planLimit: number = PLAN_INPUT_LIMIT,
): Promise<void> {
  if (options.out !== undefined && options.file !== '-' && samePath(options.out, options.file)) {
    throw new UsageError(`--out ${options.out} is the access file given to -f; the plan would overwrite it`, {
      hint: 'save the plan elsewhere, e.g. --out plan.json',
    });
  }
  sayReadingTerminal(ctx, options.file, '-f', 'the access file', 'it', 'plan -f - < access.yaml');
  const bytes = await readInputBytes(options.file, ctx.io.stdin, '-f', PLAN_INPUT_LIMIT, ctx.signal);
  const label = options.file === '-' ? 'stdin' : options.file;
  const piped = fromPipe(options.file, ctx.io.stdin) ? options.file : undefined;
  const startedAt = Math.floor(ctx.clock.now() / 1000) * 1000;
  const anchor = (platform: Platform) => runAnchor(ctx, platform, startedAt, ACCESS_FILE_DURATIONS);
  // The file is read and checked before the platform (or a credential) is needed.
  const { document } = await withCompactHeap(async () =>
    computePlan(
      ctx,
      () => ctx.platform(),
      readFile(ctx, label, bytes, piped),
      anchor,
      options.createMissing,
      'svc apply --prune',
    ),
  );
  // The document holds webhook URLs and redirect URIs whole: one with a secret makes the file secret.
  const secretUrl = options.out === undefined ? undefined : urlSecretIn(document);
  const holdsSecret = secretUrl !== undefined;
  // Whether svc made the file (always 0600), or wrote into a pipe or device of the user's.
  let made = false;
  const text = options.out === undefined ? undefined : `${JSON.stringify(document, null, 2)}\n`;
  if (text !== undefined) {
    // A plan svc apply could not read back is not saved as if it could be applied.
    const size = Buffer.byteLength(text);
    if (size > planLimit) {
      throw new UsageError(
        `the plan is ${mebibytes(size)}, more than svc apply reads (${mebibytes(planLimit)}); nothing was saved to ${options.out}`,
        {
          hint: "plan fewer tenants at a time (split the file by its blocks' tenants:), or apply -f the file itself",
        },
      );
    }
  }
  const { summary } = document;
  const pending = countChanges(summary) > 0;
  // Changes pending are exit 10 whatever becomes of stdout: `svc plan -f F | head -50` is never
  // "in sync" because its reader left before the end of the plan (nor `--out /dev/stdout`'s).
  if (pending) ctx.out.declareOutcome(planCutShort(summaryLine(summary, label)));
  // A named pipe whose reader left (review21b R21b-3): the plan is still printed, and the end names that file.
  let outCut: OutputReaderGoneError | undefined;
  if (options.out !== undefined && text !== undefined) {
    try {
      made = writeFileWhole(options.out, text, '--out', ctx.clock.sleepSync);
    } catch (error) {
      if (!(error instanceof OutputReaderGoneError)) throw error;
      outCut = error;
      if (pending) ctx.out.declareOutcome(outCutShort(error, summaryLine(summary, label)));
    }
  }
  const saved =
    options.out === undefined || outCut !== undefined
      ? undefined
      : `plan saved to ${options.out}${holdsSecret ? ` (${made ? '0600: ' : ''}${secretUrl} in it carries a secret; keep it private)` : ''}; ${svcCommand(ctx.settings(), `apply ${applyWord(options.out)}`)} applies it while the live state is unchanged`;
  try {
    await printPlan(ctx, document);
  } catch (error) {
    // The save is this command's outcome too: a reader gone (or a full disk) does not hide it.
    if (error instanceof ClosedPipeError && saved !== undefined) ctx.out.info(saved);
    throw error;
  }
  // A list that changed while svc read it (an item repeated, kept once): said once (brief paging22 2).
  (await ctx.platform()).sayTwice((note) => ctx.out.warn(note), 'kept');
  ctx.out.info(summaryLine(summary, label));
  if (summary.refused > 0) {
    ctx.out.warn(
      `svc apply refuses ${summary.refused} of these changes: they would ${REFUSAL_REASONS} (see "refused")`,
    );
  }
  if (saved !== undefined) ctx.out.info(saved);
  if (outCut !== undefined) throw pending ? outCutShort(outCut, summaryLine(summary, label)) : outCut;
  if (pending) throw new ChangesPendingError(summaryLine(summary, label));
}

/** Changes pending, and --out's pipe closed by its reader before the plan was written whole: exit 10, the file named. */
function outCutShort(cut: OutputReaderGoneError, summary: string): SvcError {
  return new SvcError(
    'changes_pending',
    `changes are pending (${cut.flag} ${cut.path}: its reader closed the pipe before the plan was written whole, so it holds no plan to apply): ${summary}`,
    { code: 'changes_pending' },
  );
}

async function printPlan(ctx: Context, document: PlanDocument): Promise<void> {
  if (ctx.out.mode === 'json') await ctx.out.json(document);
  else if (ctx.out.mode === 'ndjson') {
    for (const tenant of document.tenants) {
      for (const change of tenant.changes)
        await ctx.out.jsonLine({ tenant: tenant.id, slug: tenant.slug, ...labelledChange(change) });
    }
  } else if (ctx.out.mode === 'table') {
    await ctx.out.write(`${planLines(document, ctx.out.color).join('\n')}\n`);
  } else {
    for (const row of planRows(document)) await ctx.out.write(`${row.join('\t')}\n`);
  }
}

/** A size in whole MiB, rounded up, or in bytes under one MiB (a limit given to runPlan). */
const mebibytes = (bytes: number) =>
  bytes >= 2 ** 20 ? `${Math.ceil(bytes / 2 ** 20)} MiB` : `${bytes} bytes`;

/** Changes pending (exit 10) said on stderr, for a plan whose stdout closed before its summary. */
function planCutShort(summary: string): SvcError {
  return new SvcError(
    'changes_pending',
    `changes are pending (stdout closed before the plan was printed whole): ${summary}`,
    { code: 'changes_pending' },
  );
}

/** A path as svc apply's PLAN.json argument on a shell command line: never read as an option. */
const applyWord = (path: string) => shellWord(path.startsWith('-') ? `./${path}` : path);

/** Two names of one file (a link, `./a` and `a`); a file that does not exist yet is no other. */
function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

export default function planCommand(make: MakeContext): Command {
  return new Command('plan')
    .summary('Show how the live state differs from an access file (exit 10 when changes are pending)')
    .description(
      'Check an access file (custom roles, role grants, webhooks, OAuth clients per tenant; YAML or\n' +
        'JSON), then compare it with the live state and print the difference per tenant: what svc apply\n' +
        'would create, update (field by field) and delete. Every problem of the file is reported at once,\n' +
        'as FILE:LINE, before anything is compared. Nothing is changed. The tenants are those the file\n' +
        'names (tenants:); a --tenant on the command line bounds them: a file reaching another is refused.\n\n' +
        'Exit 0: no changes; 10: changes are pending; 2: the file has problems.',
    )
    .addOption(new Option('-f, --file <file>', 'the access file (- for stdin)'))
    .addOption(
      new Option(
        '--out <plan.json>',
        'also save the plan document to a file, for svc apply PLAN.json (--json prints it)',
      ),
    )
    .addOption(
      new Option(
        '--create-missing',
        'create the webhooks and OAuth clients whose id (an export of another tenant or platform) is not there',
      ),
    )
    .addHelpText(
      'after',
      examples(
        ['svc plan -f access.yaml', 'what would change'],
        ['svc plan -f access.yaml --out plan.json', 'save it for review, then: svc apply plan.json'],
        ['svc plan -f access.yaml --json > plan.json || [ $? -eq 10 ]', 'in CI: drift detection'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      await runPlan(await make(cmd), parsePlan(flags));
    });
}
