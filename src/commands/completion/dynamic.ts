import { Command } from 'commander';
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
 * How long the whole completion may take (tenant lookup and every page included): a TAB press
 * must not hang (less if --timeout / SVC_TIMEOUT says so).
 */
const DEADLINE_MS = 1500;

/**
 * A value the scripts can offer as one candidate: one line (the protocol is one value per line)
 * and no tab (fish reads what follows a tab as a description). Anything else is offered as it
 * is; the scripts quote it for the shell.
 */
const offerable = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && !/[\n\r\t]/.test(value);

/**
 * `svc __complete KIND` (hidden): the values the completion scripts offer at TAB time, one per
 * line. The run has one deadline and no retries, and never refreshes a session (see
 * Context.forCompletion). Any failure — no profile, no network, a slow server — prints nothing and
 * exits 0; when the deadline passes between pages, the values found so far are offered.
 */
export async function runComplete(ctx: Context, kind: string): Promise<void> {
  const values: string[] = [];
  if (kind === 'profiles') {
    try {
      values.push(...Object.keys(ctx.store().profiles()).sort());
    } catch {
      return;
    }
  } else if (KINDS[kind]) {
    const { list, fields } = KINDS[kind];
    const items: object[] = [];
    let quick: Context | undefined;
    try {
      quick = ctx.forCompletion(Math.min(DEADLINE_MS, ctx.timeoutMs));
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
  if (values.length > 0) await ctx.out.write(`${values.join('\n')}\n`);
}

export default function complete(make: MakeContext): Command {
  return new Command('__complete')
    .description('Values for shell completion (used by the completion scripts)')
    .argument('<kind>', 'profiles, tenants, roles or webhooks')
    .action(async (kind: string, _flags: unknown, cmd: Command) => runComplete(await make(cmd), kind));
}
