import { Type } from '@sinclair/typebox';
import { findMismatch } from '../platform/check.js';
import { KINDS } from './model.js';

/**
 * The shape of a saved plan (./plan.ts, "The plan document" in the README), checked before
 * `svc apply PLAN.json` believes any of it: a plan cut short, hand-edited or written by something
 * else is refused in one line naming the first field that does not fit, never a crash half-way.
 */

const text = Type.String();
const maybe = Type.Union([Type.String(), Type.Null()]);
const names = Type.Union([Type.Literal('all'), Type.Array(Type.String())]);
const unchanged = Type.Object({ count: Type.Number(), digest: Type.String() });

const CHANGE = Type.Object({
  kind: text,
  action: text,
  verb: text,
  name: text,
  id: maybe,
  ref: Type.Optional(text),
  existing: Type.Optional(Type.Array(text)),
  line: Type.Union([Type.Number(), Type.Null()]),
  prune: Type.Boolean(),
  fields: Type.Array(Type.Object({ field: text })),
  before: maybe,
  needs: Type.Array(Type.String()),
  grant: Type.Optional(
    Type.Object({ user: text, role: text, role_id: maybe, expires_at: maybe, justification: maybe }),
  ),
  refused: Type.Optional(Type.String()),
});

const PLAN = Type.Object({
  svc_plan: Type.Number(),
  created_at: text,
  base_url: text,
  file: Type.Object({ path: text, sha256: text }),
  manage: Type.Object({ roles: text, grants: text, webhooks: text, oauth_clients: text }),
  anchor: text,
  summary: Type.Object({}),
  tenants: Type.Array(
    Type.Object({
      id: text,
      slug: text,
      display_name: text,
      scope: Type.Object({ roles: names, grants: names, webhooks: names, oauth_clients: names }),
      unchanged: Type.Object({
        role: unchanged,
        grant: unchanged,
        webhook: unchanged,
        oauth_client: unchanged,
      }),
      changes: Type.Array(CHANGE),
    }),
  ),
});

const ACTIONS = ['create', 'update', 'delete'];

/** What first does not fit a plan document (`tenants[0].changes`: missing), or undefined. */
export function planShapeProblem(value: unknown): string | undefined {
  const mismatch = findMismatch(PLAN, value, new Map());
  if (mismatch) {
    return mismatch.found === undefined
      ? `${mismatch.path} is missing`
      : `${mismatch.path} is ${mismatch.found}, not ${mismatch.expected}`;
  }
  const tenants = (value as { tenants: Array<{ changes: Array<{ kind: string; action: string }> }> }).tenants;
  for (const [t, tenant] of tenants.entries()) {
    for (const [c, change] of tenant.changes.entries()) {
      if (!(KINDS as readonly string[]).includes(change.kind))
        return `tenants[${t}].changes[${c}].kind is ${JSON.stringify(change.kind)}`;
      if (!ACTIONS.includes(change.action))
        return `tenants[${t}].changes[${c}].action is ${JSON.stringify(change.action)}`;
    }
  }
  return undefined;
}
