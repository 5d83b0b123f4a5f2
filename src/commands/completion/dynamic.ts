import { Command } from 'commander';
import type { Context } from '../../context.js';
import type { CallOptions, Platform } from '../../platform/index.js';
import type { MakeContext } from '../kit.js';

type Lister = (platform: Platform, options: CallOptions) => Promise<{ items: object[] }>;

/**
 * What each kind lists (one page), and which fields of an item are values to complete, all of
 * the first field's values before the next's. A tenant is named by its slug or its id anywhere,
 * so both are offered, the slug (what a person types) first.
 */
const KINDS: Record<string, { list: Lister; fields: Array<'id' | 'name' | 'slug'> }> = {
  tenants: { list: (p, o) => p.tenants.list({ limit: 200 }, o), fields: ['slug', 'id'] },
  roles: { list: (p, o) => p.roles.list({}, o), fields: ['name'] },
  webhooks: { list: (p, o) => p.webhooks.list({}, o), fields: ['id'] },
};

/** How long completion may wait for the API: a TAB press must not hang (less if --timeout says so). */
const TIMEOUT_MS = 1500;

/**
 * `svc __complete KIND` (hidden): the values the completion scripts offer at TAB time, one per
 * line. Any failure — no profile, no network, a slow server — prints nothing and exits 0.
 */
export async function runComplete(ctx: Context, kind: string): Promise<void> {
  const values: string[] = [];
  try {
    if (kind === 'profiles') {
      values.push(...Object.keys(ctx.store().profiles()).sort());
    } else if (KINDS[kind]) {
      const { list, fields } = KINDS[kind];
      const timeoutMs = Math.min(TIMEOUT_MS, ctx.timeoutMs);
      const { items } = await list(await ctx.platform(), { timeoutMs, maxRetries: 0 });
      for (const field of fields) {
        for (const item of items) {
          const value = (item as Record<string, unknown>)?.[field];
          if (typeof value === 'string' && !/\s/.test(value) && !values.includes(value)) values.push(value);
        }
      }
    }
  } catch {
    return;
  }
  if (values.length > 0) await ctx.out.write(`${values.join('\n')}\n`);
}

export default function complete(make: MakeContext): Command {
  return new Command('__complete')
    .description('Values for shell completion (used by the completion scripts)')
    .argument('<kind>', 'profiles, tenants, roles or webhooks')
    .action(async (kind: string, _flags: unknown, cmd: Command) => runComplete(await make(cmd), kind));
}
