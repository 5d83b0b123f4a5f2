import { Command } from 'commander';
import { COMPLETE_PROTOCOL } from '../../completion/protocol.js';
import { parseCompletionTimeout } from '../../config/env-limits.js';
import type { Context } from '../../context.js';
import type { Platform } from '../../platform/index.js';
import type { MakeContext } from '../kit.js';

type Lister = (platform: Platform) => AsyncIterable<object>;

/**
 * What each kind lists (page after page, the largest page the reference documents where it
 * documents one), and which fields of an item are values to complete, all of the first field's
 * values before the next's. A tenant is named by its slug or its id anywhere, so both are
 * offered, the slug (what a person types) first.
 */
const KINDS: Record<string, { list: Lister; fields: Array<'id' | 'name' | 'slug'> }> = {
  tenants: { list: (p) => p.tenants.listAll({ limit: 200 }), fields: ['slug', 'id'] },
  roles: { list: (p) => p.roles.listAll({}), fields: ['name'] },
  webhooks: { list: (p) => p.webhooks.listAll({}), fields: ['id'] },
};

/**
 * A value the scripts can offer as one candidate: one line (the protocol is one value per line)
 * and no tab (fish reads what follows a tab as a description). Anything else is offered as it
 * is to a script that says `--protocol 2`; it quotes it for the shell.
 */
const offerable = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && !/[\n\r\t]/.test(value);

/**
 * A value that may go to a caller without `--protocol 2`: a completion script svc wrote before
 * it, which a user installed once in a file (as the README says) and keeps after upgrading svc.
 * Those scripts hand the values to `compgen -W`, which expands `$(…)`, backquotes, `$VAR`, `~`
 * and braces in them (a role name from a hostile server or proxy would run as code at TAB),
 * splits them at white space, and their result is globbed. So such a caller gets only values of
 * letters, digits and `. _ - : @ + , = % /`, none of which the shell expands or splits there; the
 * others are dropped without a word (anything written to stderr at TAB lands in the prompt).
 */
const plain = (value: string): boolean => /^[\p{L}\p{N}._\-:@+,=%/]+$/u.test(value);

/**
 * `svc __complete [--protocol 2] KIND` (hidden): the values the completion scripts offer at TAB
 * time, one per line (without --protocol 2, only the plain() ones). The run has one deadline and
 * no retries, and never refreshes a session (see Context.forCompletion). Any failure — no
 * profile, no network, a slow server — prints nothing and exits 0; when the deadline passes
 * between pages, the values found so far are offered.
 */
export async function runComplete(ctx: Context, kind: string, protocol?: string): Promise<void> {
  const values: string[] = [];
  if (kind === 'profiles') {
    try {
      values.push(...ctx.store().profileNames());
    } catch {
      return;
    }
  } else if (KINDS[kind]) {
    const { list, fields } = KINDS[kind];
    const items: object[] = [];
    let quick: Context | undefined;
    try {
      // How long the whole completion may take (tenant lookup and every page included): a TAB
      // press must not hang. SVC_COMPLETION_TIMEOUT (default 1.5 s), less if --timeout /
      // SVC_TIMEOUT says so; a bad value of either offers nothing.
      quick = ctx.forCompletion(Math.min(parseCompletionTimeout(ctx.env), ctx.timeoutMs));
      for await (const item of list(await quick.platform())) items.push(item);
    } catch {
      // The deadline, the network or the server: the items that came before are still true.
    } finally {
      await quick?.close().catch(() => undefined);
    }
    for (const field of fields) {
      for (const item of items) {
        const value = (item as Record<string, unknown>)?.[field];
        if (offerable(value) && !values.includes(value)) values.push(value);
      }
    }
  }
  const offered = protocol === COMPLETE_PROTOCOL ? values : values.filter(plain);
  if (offered.length > 0) await ctx.out.write(`${offered.join('\n')}\n`);
}

export default function complete(make: MakeContext): Command {
  return new Command('__complete')
    .description('Values for shell completion (used by the completion scripts)')
    .argument('<kind>', 'profiles, tenants, roles or webhooks')
    .option(
      '--protocol <n>',
      `${COMPLETE_PROTOCOL}: the caller quotes each value (without it: only values no shell expands)`,
    )
    .action(async (kind: string, flags: { protocol?: string }, cmd: Command) =>
      runComplete(await make(cmd), kind, flags.protocol),
    );
}
