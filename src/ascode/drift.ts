import { serverTime } from '../api/time.js';
import { UsageError } from '../errors.js';
import { utf16Of, utf16Words } from '../system/input.js';
import { sameSet } from './changes.js';
import { unchangedDigests } from './diff.js';
import { comparable, fingerprint } from './fingerprint.js';
import { holdsAsPlanned } from './held-expiry.js';
import type { LiveTenant } from './live.js';
import { KINDS, type Kind } from './model.js';
import { changeKey, PLAN_FORMAT, type PlanChange, type PlanDocument, planDigest } from './plan.js';
import { planChangeProblem, planShapeProblem } from './plan-schema.js';
import { changeLabel, headline } from './render.js';

/**
 * A saved plan is applied only to the state it was computed from. Each change's resource must
 * still have the fingerprint the plan saw, and what the plan compared but left alone (in its
 * scope) must still hash the same. A run resumed after a crash also accepts a resource already
 * in the state the change makes: that change is done.
 */

/** A saved plan refused as a whole (exit 2): nothing of it is sent. */
export const planRefused = (message: string) =>
  new UsageError(message, {
    code: 'invalid_plan',
    hint: 'a plan is applied as svc plan --out saved it; save a new one with `svc plan -f FILE --out PLAN.json`',
  });

/** Reads PLAN.json: refuses what is not a plan svc wrote. */
export function readPlanDocument(label: string, bytes: Buffer): PlanDocument {
  let doc: unknown;
  // A plan saved through PowerShell 5's `>` is UTF-16: said so, with the fix (attack20 F5).
  const utf16 = utf16Of(bytes);
  if (utf16) throw new UsageError(`${label} is ${utf16Words(utf16)}`, { code: 'invalid_plan' });
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
  // Cut short or edited by hand: refused as a whole, before any of it is believed. Its shape
  // first (what the digest is computed over), then its digest, then what each change shows
  // against what it sends (an edit whose digest was made again).
  const refuse = (why: string) => planRefused(`${label} is ${why}`);
  const problem = planShapeProblem(plan);
  if (problem !== undefined) throw refuse(`not a plan svc wrote: ${problem}`);
  if (plan.digest !== planDigest(plan as PlanDocument))
    throw refuse('not the plan svc wrote: it does not match its digest (edited by hand?)');
  const inconsistent = planChangeProblem(plan as PlanDocument);
  if (inconsistent !== undefined) throw refuse(`not a plan svc wrote: ${inconsistent}`);
  return plan as PlanDocument;
}

const KIND_WORDS: Record<Kind, string> = {
  role: 'custom roles',
  grant: 'grants',
  webhook: 'webhooks',
  oauth_client: 'OAuth clients',
};

/**
 * The live resource's fingerprint, whether the change is made, and, for a role whose name now
 * names another role than the one planned, that role's id and the name the planned one goes by
 * now (undefined: not listed, deleted or the platform's state reset).
 */
type Current = {
  print: string | null;
  done: boolean;
  replaced?: { id: string; plannedNow: string | undefined } | undefined;
};

/** The live resource has every value the change sets. */
const wants = (change: PlanChange, actual: object) =>
  change.fields.every((f) => {
    if (f.to === undefined) return true;
    const value = (actual as Record<string, unknown>)[f.field];
    return Array.isArray(f.to) ? Array.isArray(value) && sameSet(f.to, value) : (value ?? null) === f.to;
  });

type Integration = LiveTenant['webhooks'][number] | LiveTenant['clients'][number];

/**
 * What each webhook or client creation of a tenant's plan finds now: a live one of its URL or
 * name that was not there when planned (`existing`), each for one creation only — first those
 * exactly as a creation makes them (two creations of one URL, made by an interrupted run, are each
 * found made), then any other (one created since by someone else: drift).
 */
function creationsNow(changes: readonly PlanChange[], live: LiveTenant): Map<PlanChange, Integration> {
  const found = new Map<PlanChange, Integration>();
  const taken = new Set<string>();
  const creations = changes.filter(
    (c) => c.action === 'create' && (c.kind === 'webhook' || c.kind === 'oauth_client'),
  );
  const idOf = (r: Integration) => ('client_id' in r ? r.client_id : r.id);
  const candidates = (c: PlanChange): Integration[] =>
    (c.kind === 'webhook'
      ? live.webhooks.filter((w) => w.url === c.name)
      : live.clients.filter((o) => o.name === c.name)
    ).filter((r) => !taken.has(idOf(r)) && !(c.existing ?? []).includes(idOf(r)));
  for (const exact of [true, false]) {
    for (const change of creations) {
      if (found.has(change)) continue;
      const match = candidates(change).find((r) => !exact || wants(change, r));
      if (!match) continue;
      found.set(change, match);
      taken.add(idOf(match));
    }
  }
  return found;
}

/** The live resource a change is about: its fingerprint now, and whether the change is already made. */
function current(
  change: PlanChange,
  live: LiveTenant,
  created: Map<PlanChange, Integration>,
  nowMs: number,
): Current {
  const gone = change.action === 'delete';
  if (change.kind === 'role') {
    const role = live.roles.get(change.name);
    const found = role?.kind === 'custom' ? role : undefined;
    return found
      ? {
          print: fingerprint(comparable.role(found)),
          done: !gone && wants(change, found) && (change.id === null || change.id === found.id),
          replaced:
            change.id !== null && change.id !== found.id
              ? { id: found.id, plannedNow: [...live.roles.values()].find((r) => r.id === change.id)?.name }
              : undefined,
        }
      : { print: null, done: gone };
  }
  if (change.kind === 'grant') {
    const grant = live.grants.get(change.name);
    return grant
      ? {
          print: fingerprint(comparable.grant(grant)),
          // As svc plan would judge it now (./held-expiry.ts): an `expires_in` grant made since by
          // another run, counted from its own second, is the change made (attack21 F2).
          done: !gone && change.grant !== undefined && holdsAsPlanned(change.grant, grant.expiresAt, nowMs),
        }
      : { print: null, done: gone };
  }
  if (change.kind === 'webhook') {
    const hook = change.id
      ? live.webhooks.find((w) => w.id === change.id)
      : (created.get(change) as LiveTenant['webhooks'][number] | undefined);
    return hook
      ? { print: fingerprint(comparable.webhook(hook)), done: !gone && wants(change, hook) }
      : { print: null, done: gone };
  }
  const client = change.id
    ? live.clients.find((c) => c.client_id === change.id)
    : (created.get(change) as LiveTenant['clients'][number] | undefined);
  return client
    ? { print: fingerprint(comparable.oauth_client(client)), done: !gone && wants(change, client) }
    : { print: null, done: gone };
}

/**
 * A grant's role id (what is sent) that is not the live id of the role it names (what is shown):
 * the role was replaced since the plan, or the plan says one role and sends another.
 */
function roleIdDrift(change: PlanChange, live: LiveTenant): string | undefined {
  const grant = change.grant;
  if (change.kind !== 'grant' || !grant || grant.role_id === null) return undefined;
  const id = live.roles.get(grant.role)?.id;
  // A revocation of a role gone since is its grant gone (drift, or done for a resumed run).
  if (id === grant.role_id || (id === undefined && change.action === 'delete')) return undefined;
  return id === undefined
    ? `${what(change)} is of role ${grant.role}, which was removed since the plan`
    : `${what(change)} is of role id ${grant.role_id}, which is not ${grant.role}'s (${id})`;
}

/** The expiry a grant change's grant had when planned, once the platform's time reached it. */
function expiredAt(change: PlanChange, nowMs: number): string | undefined {
  const held =
    change.kind === 'grant' ? change.fields.find((f) => f.field === 'expires_at')?.from : undefined;
  return typeof held === 'string' && serverTime(held) <= nowMs ? held : undefined;
}

/**
 * How a change's resource that is gone now went: a grant past the expiry the plan showed ended, how
 * svc cannot tell (the platform lists no ended grants: an expiry and a revocation look alike).
 */
function gone(change: PlanChange, nowMs: number): string {
  const held = expiredAt(change, nowMs);
  return held !== undefined ? `ended (not held; its planned expiry ${held} has passed)` : 'was removed';
}

function what(change: PlanChange): string {
  return change.kind === 'grant'
    ? `the grant of ${change.grant?.role} to ${change.grant?.user}`
    : `${change.kind.replace('_', ' ')} ${changeLabel(change.kind, change.name)}`;
}

/**
 * What drifted since the plan (one line each), the changes a resumed run finds already made, and
 * the revocations whose grant ended since at the expiry the plan showed (key: that expiry).
 *
 * A grant that reached the `expires_at` the plan recorded ended as the plan foresaw (attack22 F5):
 * for its revocation (a removal, sent only with --prune) that is no drift, since the grant is not
 * held either way and what apply leaves is what the plan showed; the revocation is not sent, and
 * its row says only what is known (review22b F6): the grant ended, its planned expiry passed, not
 * that it expired (the platform lists no ended grants, so an expiry and a revocation look alike). Any other change of such a grant (an extension, a shortening)
 * would now be a new grant, not the change reviewed: drift. A grant the plan leaves alone that
 * expired is drift too: the file asks for it, and a plan made now would grant it again.
 */
export function checkDrift(
  doc: PlanDocument,
  live: ReadonlyMap<string, LiveTenant>,
  resumed: boolean,
  /** The platform's time now: what tells a grant that ended from one removed. */
  nowMs: number,
): { drift: string[]; done: Set<string>; expired: Map<string, string> } {
  const drift: string[] = [];
  const done = new Set<string>();
  const expired = new Map<string, string>();
  for (const tenant of doc.tenants) {
    const have = live.get(tenant.id);
    if (!have) continue;
    const created = creationsNow(tenant.changes, have);
    for (const change of tenant.changes) {
      const role = roleIdDrift(change, have);
      if (role !== undefined) {
        drift.push(`${tenant.slug}: ${role}`);
        continue;
      }
      const now = current(change, have, created, nowMs);
      if (now.print === change.before) continue;
      // Before a resumed run's done: a revocation not held past its planned expiry may have expired
      // or been revoked, by the interrupted run or anyone, and is said alike (review22b F6).
      const ended = now.print === null && change.action === 'delete' ? expiredAt(change, nowMs) : undefined;
      if (ended !== undefined) {
        expired.set(changeKey(tenant.id, change), ended);
        continue;
      }
      if (resumed && now.done) {
        done.add(changeKey(tenant.id, change));
        continue;
      }
      // A name that names another role: said as it is known, never as a deletion the platform
      // may not have made (attack29b F5: a rename was called "deleted and created again").
      if (change.before !== null && now.print !== null && now.replaced) {
        const { id, plannedNow } = now.replaced;
        const planned = plannedNow
          ? `which is now named ${plannedNow}`
          : `which is no longer listed: deleted, or the platform's state was reset`;
        drift.push(
          `${tenant.slug}: ${what(change)} names another role since the plan (${id}, not ${change.id}, ${planned})`,
        );
        continue;
      }
      const how =
        change.before === null ? 'was created' : now.print === null ? gone(change, nowMs) : 'changed';
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
  return { drift, done, expired };
}

/** The grants a plan would make or move whose expiry is at or before `now`, one line each. */
export function agedOut(
  doc: PlanDocument,
  sent: (tenant: string, change: PlanChange) => boolean,
  now: number,
): string[] {
  const lines: string[] = [];
  for (const tenant of doc.tenants) {
    for (const change of tenant.changes) {
      const expiresAt = change.grant?.expires_at ?? null;
      if (change.action === 'delete' || expiresAt === null || !sent(tenant.id, change)) continue;
      if (serverTime(expiresAt) <= now)
        lines.push(`${tenant.slug}: ${headline(change).slice(2)} (expires_at ${expiresAt})`);
    }
  }
  return lines;
}
