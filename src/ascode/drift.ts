import { UsageError } from '../errors.js';
import { sameSet } from './changes.js';
import { unchangedDigests } from './diff.js';
import { comparable, fingerprint } from './fingerprint.js';
import type { LiveTenant } from './live.js';
import { KINDS, type Kind } from './model.js';
import { changeKey, PLAN_FORMAT, type PlanChange, type PlanDocument } from './plan.js';
import { planShapeProblem } from './plan-schema.js';

/**
 * A saved plan is applied only to the state it was computed from. Each change's resource must
 * still have the fingerprint the plan saw, and what the plan compared but left alone (in its
 * scope) must still hash the same. A run resumed after a crash also accepts a resource already
 * in the state the change makes: that change is done.
 */

/** Reads PLAN.json: refuses what is not a plan svc wrote. */
export function readPlanDocument(label: string, bytes: Buffer): PlanDocument {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new UsageError(`${label} is not JSON: ${(error as Error).message}`, {
      hint: 'give a plan saved by `svc plan --out`, or the access file with -f',
    });
  }
  const plan = doc as Partial<PlanDocument> | null;
  if (plan === null || typeof plan !== 'object' || plan.svc_plan !== PLAN_FORMAT) {
    throw new UsageError(`${label} is not a plan saved by svc plan --out (format ${PLAN_FORMAT})`, {
      hint: 'pass an access file with -f FILE, or save a plan with `svc plan -f FILE --out PLAN.json`',
    });
  }
  // Cut short or edited by hand: refused as a whole, before any of it is believed.
  const problem = planShapeProblem(plan);
  if (problem !== undefined) {
    throw new UsageError(`${label} is not a plan svc wrote: ${problem}`, {
      code: 'invalid_plan',
      hint: 'a plan is applied as svc plan --out saved it; save a new one with `svc plan -f FILE --out PLAN.json`',
    });
  }
  return plan as PlanDocument;
}

const KIND_WORDS: Record<Kind, string> = {
  role: 'custom roles',
  grant: 'grants',
  webhook: 'webhooks',
  oauth_client: 'OAuth clients',
};

type Current = { print: string | null; done: boolean; replaced?: boolean };

/** The live resource a change is about: its fingerprint now, and whether the change is already made. */
function current(change: PlanChange, live: LiveTenant): Current {
  const wants = (actual: Record<string, unknown>) =>
    change.fields.every((f) => {
      if (f.to === undefined) return true;
      const value = actual[f.field];
      return Array.isArray(f.to) ? Array.isArray(value) && sameSet(f.to, value) : (value ?? null) === f.to;
    });
  const gone = change.action === 'delete';
  if (change.kind === 'role') {
    const role = live.roles.get(change.name);
    const found = role?.kind === 'custom' ? role : undefined;
    return found
      ? {
          print: fingerprint(comparable.role(found)),
          done: !gone && wants(found as never) && (change.id === null || change.id === found.id),
          replaced: change.id !== null && change.id !== found.id,
        }
      : { print: null, done: gone };
  }
  if (change.kind === 'grant') {
    const grant = live.grants.get(change.name);
    return grant
      ? {
          print: fingerprint(comparable.grant(grant)),
          done: !gone && grant.expiresAt === (change.grant?.expires_at ?? null),
        }
      : { print: null, done: gone };
  }
  if (change.kind === 'webhook') {
    const hook = live.webhooks.find((w) => (change.id ? w.id === change.id : w.url === change.name));
    return hook
      ? { print: fingerprint(comparable.webhook(hook)), done: !gone && wants(hook as never) }
      : { print: null, done: gone };
  }
  const client = live.clients.find((c) => (change.id ? c.client_id === change.id : c.name === change.name));
  return client
    ? { print: fingerprint(comparable.oauth_client(client)), done: !gone && wants(client as never) }
    : { print: null, done: gone };
}

function what(change: PlanChange): string {
  return change.kind === 'grant'
    ? `the grant of ${change.grant?.role} to ${change.grant?.user}`
    : `${change.kind.replace('_', ' ')} ${change.name}`;
}

/**
 * What drifted since the plan (one line each), and the changes a resumed run finds already made.
 */
export function checkDrift(
  doc: PlanDocument,
  live: ReadonlyMap<string, LiveTenant>,
  resumed: boolean,
): { drift: string[]; done: Set<string> } {
  const drift: string[] = [];
  const done = new Set<string>();
  for (const tenant of doc.tenants) {
    const have = live.get(tenant.id);
    if (!have) continue;
    for (const change of tenant.changes) {
      const now = current(change, have);
      if (now.print === change.before) continue;
      if (resumed && now.done) {
        done.add(changeKey(tenant.id, change));
        continue;
      }
      const how =
        change.before === null
          ? 'was created'
          : now.print === null
            ? 'was removed'
            : now.replaced
              ? 'was replaced (deleted and created again)'
              : 'changed';
      drift.push(`${tenant.slug}: ${what(change)} ${how} since the plan`);
    }
    const digests = unchangedDigests(have, tenant.scope, tenant.changes);
    for (const kind of KINDS) {
      const then = tenant.unchanged[kind];
      const nowDigest = digests[kind];
      if (then && then.digest !== nowDigest.digest) {
        drift.push(
          `${tenant.slug}: ${KIND_WORDS[kind]} the plan leaves alone changed since it was computed (${then.count} then, ${nowDigest.count} now)`,
        );
      }
    }
  }
  return { drift, done };
}
