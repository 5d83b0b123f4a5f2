import type { RoleAssignment, RoleAssignmentList } from '../../api/schemas/roles.js';
import type { Journal } from '../../bulk/journal.js';
import { type BulkItem, runBulk } from '../../bulk/runner.js';
import type { Context } from '../../context.js';
import { InterruptedError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { ApiError } from '../../http/errors.js';
import { path } from '../../http/path.js';
import { columns, type RowOutput, VERB } from './results.js';
import type { BulkKind, GrantRow, RevokeRow } from './rows.js';

/** --dry-run: each user's roles are read (nothing is changed) to tell what would happen to each row. */
export async function dryRun(
  ctx: Context,
  api: ApiClient,
  kind: BulkKind,
  items: Array<BulkItem<GrantRow | RevokeRow>>,
  journal: Journal | undefined,
  concurrency: number,
): Promise<void> {
  const users = [...new Set(items.filter((i) => !journal?.has(i.key)).map((i) => i.data.user))];
  // Only what the plan needs: each user's active assignments of the roles the file names.
  const named = new Set(items.map((i) => i.data.role.id));
  type Held = Pick<RoleAssignment, 'role_id' | 'expires_at' | 'audit_trail_id'>;
  const held = new Map<string, Held[] | 'missing'>();
  let fatal: unknown;
  const lookup = await runBulk({
    items: users.map((user) => ({ key: user, data: user })),
    concurrency,
    interrupt: ctx.signal,
    work: async (item, signal) => {
      try {
        const { data } = await api.get<RoleAssignmentList>(path`/v1/users/${item.data}/roles`, undefined, {
          signal,
        });
        held.set(
          item.data,
          data.items
            .filter((a) => a.status === 'active' && named.has(a.role_id))
            .map(({ role_id, expires_at, audit_trail_id }) => ({ role_id, expires_at, audit_trail_id })),
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) held.set(item.data, 'missing');
        else {
          fatal ??= error;
          throw error;
        }
      }
      return {};
    },
  });
  if (lookup.interrupted) throw new InterruptedError('interrupted; nothing was changed');
  if (fatal) throw fatal;

  const counts = { act: 0, in_place: 0, fail: 0 };
  const act = kind === 'assign' ? 'grant' : 'revoke';
  const plan = items.map((item): RowOutput => {
    const row = item.data;
    const base = { line: row.line, user: row.user, role: row.role.name, role_id: row.role.id };
    const done = journal?.get(item.key);
    if (done) {
      counts.in_place++;
      return {
        ...base,
        plan: 'in_place',
        reason: 'done by an earlier run (journal)',
        ...done.detail,
        status: undefined,
      };
    }
    const assignments = held.get(row.user);
    if (assignments === 'missing' || assignments === undefined) {
      counts.fail++;
      return { ...base, plan: 'fail', detail: `user ${row.user} not found` };
    }
    const active = assignments.find((a) => a.role_id === row.role.id);
    if (kind === 'assign') {
      if (active) {
        counts.in_place++;
        return {
          ...base,
          plan: 'in_place',
          expires_at: active.expires_at,
          audit_trail_id: active.audit_trail_id,
          detail: 'already assigned',
        };
      }
      counts.act++;
      return { ...base, plan: act, expires_at: (row as GrantRow).expiresAt };
    }
    if (!active) {
      counts.in_place++;
      return { ...base, plan: 'in_place', detail: 'not assigned' };
    }
    counts.act++;
    return { ...base, plan: act, audit_trail_id: active.audit_trail_id };
  });
  const jsonPlan = plan.map(({ status: _s, ...rest }) => rest);
  await ctx.out.list(jsonPlan, columns(kind, true));
  const n = (count: number) => count.toLocaleString('en');
  ctx.out.info(
    `dry run: ${n(counts.act)} would be ${VERB[kind].done}, ${n(counts.in_place)} already in place, ${n(counts.fail)} would fail; nothing was changed`,
  );
}
