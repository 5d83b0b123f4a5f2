import { Command } from 'commander';
import type { Context } from '../../context.js';
import type { MakeContext } from '../kit.js';

const KINDS: Record<string, { path: string; field: 'id' | 'name' }> = {
  tenants: { path: '/v1/tenants', field: 'id' },
  roles: { path: '/v1/roles', field: 'name' },
  webhooks: { path: '/v1/webhooks', field: 'id' },
};

/** How long completion may wait for the API: a TAB press must not hang. */
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
      const { path, field } = KINDS[kind];
      const api = await ctx.api();
      const { data } = await api.get<unknown>(
        path,
        field === 'id' && kind === 'tenants' ? { limit: 200 } : undefined,
        {
          timeoutMs: TIMEOUT_MS,
          maxRetries: 0,
        },
      );
      const items = Array.isArray(data) ? data : (data as { items?: unknown[] })?.items;
      for (const item of items ?? []) {
        const value = (item as Record<string, unknown>)?.[field];
        if (typeof value === 'string' && !/\s/.test(value)) values.push(value);
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
