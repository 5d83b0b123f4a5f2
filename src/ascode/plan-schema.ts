import { Type } from '@sinclair/typebox';
import { parseDuration } from '../api/expiry.js';
import { findMismatch } from '../platform/check.js';
import { grantKey, KINDS } from './model.js';
import type { GrantTarget, PlanChange, PlanDocument } from './plan.js';

/**
 * The shape of a saved plan (./plan.ts, "The plan document" in the README), checked before
 * `svc apply PLAN.json` believes any of it: a plan cut short, hand-edited or written by something
 * else is refused in one line naming the first field that does not fit, never a crash half-way.
 * And what a change shows agrees with what apply sends for it: a grant's name and expiry are its
 * `grant`'s, its verb its action's (its digest, ./drift.ts, is checked after this).
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
    Type.Object({
      user: text,
      role: text,
      role_id: maybe,
      expires_at: maybe,
      justification: maybe,
      expires_in: Type.Optional(text),
    }),
  ),
  refused: Type.Optional(Type.String()),
  last: Type.Optional(Type.Literal(true)),
  ended_by: Type.Optional(Type.String()),
});

const PLAN = Type.Object({
  svc_plan: Type.Number(),
  digest: text,
  created_at: text,
  planned_by: text,
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

/** The verbs a change of each action reads as: grants granted, extended, shortened, revoked. */
const VERBS: Record<string, { grant: string[]; other: string[] }> = {
  create: { grant: ['grant'], other: ['create'] },
  update: { grant: ['extend', 'shorten'], other: ['update'] },
  delete: { grant: ['revoke'], other: ['delete'] },
};

type Change = PlanChange & { grant?: GrantTarget };

/** What first does not fit a plan document (`tenants[0].changes`: missing), or undefined. */
export function planShapeProblem(value: unknown): string | undefined {
  const mismatch = findMismatch(PLAN, value, new Map());
  if (mismatch) {
    return mismatch.found === undefined
      ? `${mismatch.path} is missing`
      : `${mismatch.path} is ${mismatch.found}, not ${mismatch.expected}`;
  }
  return eachChange(value as PlanDocument, (change) => {
    if (!(KINDS as readonly string[]).includes(change.kind)) return `kind is ${JSON.stringify(change.kind)}`;
    if (!VERBS[change.action]) return `action is ${JSON.stringify(change.action)}`;
    return undefined;
  });
}

/**
 * A change of a well-shaped plan (its digest checked) that shows one thing and sends another: a
 * verb not its action's, a grant whose name or expiry is not its `grant`'s. A digest made again
 * over an edit does not make one apply.
 */
export function planChangeProblem(doc: PlanDocument): string | undefined {
  return eachChange(doc, changeProblem);
}

function eachChange(
  doc: PlanDocument,
  problemOf: (change: Change) => string | undefined,
): string | undefined {
  for (const [t, tenant] of doc.tenants.entries()) {
    for (const [c, change] of tenant.changes.entries()) {
      const problem = problemOf(change);
      if (problem !== undefined) return `tenants[${t}].changes[${c}].${problem}`;
    }
  }
  return undefined;
}

function changeProblem(change: Change): string | undefined {
  const verbs = VERBS[change.action]!;
  const allowed = change.kind === 'grant' ? verbs.grant : verbs.other;
  if (!allowed.includes(change.verb))
    return `verb is ${JSON.stringify(change.verb)}, not ${allowed.map((v) => JSON.stringify(v)).join(' or ')}`;
  if (change.kind !== 'grant') return undefined;
  // A grant is shown by its name and its expiry field, and sent from `grant`: they must agree.
  const { grant } = change;
  if (!grant) return 'grant is missing';
  const sent = grantKey(grant.user, grant.role);
  if (change.name !== sent)
    return `name is ${JSON.stringify(change.name)}, not the grant's user and role (${JSON.stringify(sent)})`;
  if (change.action === 'delete') return undefined;
  if (grant.expires_in !== undefined) {
    const span = parseDuration(grant.expires_in);
    if (!span.ok || span.value.kind !== 'in' || grant.expires_at === null)
      return `grant.expires_in is ${JSON.stringify(grant.expires_in)}, not the span of its expires_at (${JSON.stringify(grant.expires_at)})`;
  }
  const shown = change.fields.find((f) => f.field === 'expires_at');
  if (!shown || shown.to !== grant.expires_at) {
    return `fields expires_at is ${JSON.stringify(shown?.to)}, not the grant's expires_at (${JSON.stringify(grant.expires_at)})`;
  }
  return undefined;
}
