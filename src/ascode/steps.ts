// Past 300 lines: one worker for every kind of change an apply makes (roles, grants, webhooks, OAuth
// clients), whose idempotency keys, stored answers and "so already" refusals are one set of rules.

import { justificationNotSent, oddGrantStatus } from '../api/roles.js';
import type { RoleAssignment } from '../api/schemas/roles.js';
import { clearlyAfter } from '../api/time.js';
import { type BulkItem, FOUND_AFTER_LOST_ANSWER, type WorkCall } from '../bulk/item.js';
import { checkStoredGrant, checkStoredRevocation } from '../bulk/stored-grants.js';
import type { CommandLine } from '../config/settings.js';
import { SvcError } from '../errors.js';
import {
  AssignmentExistsError,
  AssignmentNotFoundError,
  OAuthClientNotFoundError,
  RoleDeletedError,
  RoleNameTakenError,
  RoleNotFoundError,
  shownBy,
  WebhookNotFoundError,
} from '../platform/errors.js';
import {
  attemptStart,
  type CallerIds,
  foundAfterLostAnswer,
  grantAnswerNotMade,
  sentStart,
} from '../platform/found-after-lost.js';
import type { Platform } from '../platform/index.js';
import { liveRoleNamed, permissionDifference } from '../platform/role-ref.js';
import type { Sleep } from '../system/clock.js';
import { createWithSecret, sharedKey, type Unsaved } from './creations.js';
import { holdsAsPlanned } from './held-expiry.js';
import { refuseGrantMoved, refuseIntegrationMoved, refuseRoleMoved } from './meanwhile.js';
import { grantedChanges, phaseOf } from './phases.js';
import { changeKey, type PlanChange, type PlanDocument } from './plan.js';
import type { SecretDir } from './secrets.js';

/**
 * The steps of applying a plan, as items of the one bulk operation: one per change, in phases
 * (custom roles first, then grants and integrations, then removals, custom roles last; what
 * takes away the caller's own reach after all of them, in the order phaseOf says), each
 * grant of a new role after that role, each role removal after the revocations of its grants;
 * and the worker that makes one change through the platform client.
 */

export interface Step {
  tenant: { id: string; slug: string; display_name: string };
  change: PlanChange;
  /** A resumed run found it made already (./drift.ts): reported, not sent. */
  done: boolean;
  /** A saved plan's revocation whose grant is not held past this expiry the plan showed (./drift.ts): not sent. */
  expired?: string;
  /** A role deletion: the users whose own revocation it ends (PlanChange.ended_by), holders it may end too. */
  ends?: string[];
}

/** The changes apply makes (removals only with --prune; none svc refuses), as bulk items in phase order. */
export function planSteps(
  doc: PlanDocument,
  prune: boolean,
  done: ReadonlySet<string> = new Set(),
  expired: ReadonlyMap<string, string> = new Map(),
): Array<BulkItem<Step>> {
  const steps: Array<BulkItem<Step>> = [];
  const needed = new Set<string>();
  for (const tenant of doc.tenants) {
    // A revocation ended by a deletion (./own-reach.ts) waits for it, not the deletion for it.
    const ended = new Map<string, { key: string; user: string }[]>();
    for (const change of tenant.changes) {
      if (change.ended_by === undefined) continue;
      const by = ended.get(change.ended_by) ?? [];
      by.push({ key: changeKey(tenant.id, change), user: change.grant!.user });
      ended.set(change.ended_by, by);
    }
    const granted = grantedChanges(tenant.changes);
    for (const change of tenant.changes) {
      if ((change.prune && !prune) || change.refused) continue;
      const key = changeKey(tenant.id, change);
      const ends = ended.get(key);
      const after =
        change.ended_by !== undefined
          ? [...change.needs, change.ended_by]
          : change.needs.filter((k) => !ends?.some((e) => e.key === k));
      for (const need of after) needed.add(need);
      const info = { id: tenant.id, slug: tenant.slug, display_name: tenant.display_name };
      steps.push({
        key,
        data: {
          tenant: info,
          change,
          done: done.has(key),
          ...(expired.has(key) ? { expired: expired.get(key) } : {}),
          ...(ends ? { ends: ends.map((e) => e.user) } : {}),
        },
        after,
        phase: phaseOf(change, granted.has(key)),
        // Made once however many runs apply this plan at once (./creations.ts).
        ...(withSecret(change) ? { shared: sharedKey(tenant.id, key, change) } : {}),
      });
    }
  }
  for (const step of steps) if (needed.has(step.key)) step.needed = true;
  // Stable: within a phase, the plan's order (tenant by tenant).
  return steps
    .map((s, i) => [s, i] as const)
    .sort((a, b) => a[0].phase! - b[0].phase! || a[1] - b[1])
    .map(([s]) => s);
}

/** A creation whose answer carries a one-time secret. */
export function withSecret(change: PlanChange): boolean {
  return change.action === 'create' && (change.kind === 'webhook' || change.kind === 'oauth_client');
}

/** The request body of a creation or an update: the fields the change sets. */
function body(change: PlanChange, except: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of change.fields) if (f.to !== undefined && !except.includes(f.field)) out[f.field] = f.to;
  return out;
}

/**
 * An update whose every field was found at the file's value just before the write (./meanwhile.ts):
 * someone made the same change since the plan's check, so svc sent nothing and says so.
 */
function madeMeanwhile(change: PlanChange): Record<string, unknown> {
  const names = change.fields.filter((f) => f.to !== undefined).map((f) => f.field);
  // A grant's expiry so found: the file's justification goes unsent with the write (justificationNotSent).
  const unsent = justificationNotSent(change.grant?.justification, "the file's", false);
  return {
    ...(change.id === undefined ? {} : { id: change.id }),
    status: 'skipped',
    reason: 'already_done',
    note: `its ${names.join(', ')} already ${names.length === 1 ? 'holds' : 'hold'} the file's value: someone made this change since the plan was checked; svc sent nothing${unsent ? `; ${unsent.words}` : ''}`,
    ...unsent?.flag,
  };
}

/**
 * A role update sends the plan's own change of its permissions (add_permissions/remove_permissions,
 * as `roles update` does), never the whole list: another admin's change made since the plan's
 * check is kept, not undone (attack28b F1). An answer whose permissions are not the plan's target
 * (someone else added or took out one meanwhile) fails the row, saying its change was made and
 * what differs: the role is not as planned, and svc does not say it is.
 */
async function updateRole(
  platform: Platform,
  change: PlanChange,
  read: { tenant: string; signal: AbortSignal },
  svc: CommandLine,
): Promise<Record<string, unknown>> {
  const field = change.fields.find((f) => f.field === 'permissions');
  const from = Array.isArray(field?.from) ? (field.from as string[]) : [];
  const to = Array.isArray(field?.to) ? (field.to as string[]) : undefined;
  const delta = to === undefined ? undefined : permissionDifference(to, from);
  // A description is sent whole: read again first, and not sent over another admin's (./meanwhile.ts).
  if ((await refuseRoleMoved(platform, change, read, shownBy('roles get', change.name)(svc))) === 'done')
    return madeMeanwhile(change);
  const sent = {
    ...body(change, ['permissions']),
    ...(delta?.more.length ? { add_permissions: delta.more } : {}),
    ...(delta?.fewer.length ? { remove_permissions: delta.fewer } : {}),
  };
  const role = await platform.roles.update(change.id!, sent as never, read);
  const held = (role as { permissions?: unknown }).permissions;
  if (to === undefined || !Array.isArray(held)) return { id: change.id };
  const other = permissionDifference(held as string[], to);
  if (!other.more.length && !other.fewer.length) return { id: change.id };
  const said = [
    ...(other.more.length ? [`also holds ${other.more.join(', ')}`] : []),
    ...(other.fewer.length ? [`lacks ${other.fewer.join(', ')}`] : []),
  ].join(' and ');
  return {
    id: change.id,
    status: 'failed',
    error: {
      code: 'role_changed_meanwhile',
      message: `its change was made, but the role ${said}, which the plan did not set: someone changed it since the plan; see ${shownBy('roles get', role.name)(svc)}`,
      made: true,
    },
  };
}

/**
 * Deleting a role ends every grant of it, so a role is deleted only while the grants it ends are
 * those the plan showed ending with it (its `grants` field's holders); what the plan revokes
 * itself is revoked before (the deletion needs it). A grant someone made since the plan (the
 * platform would end it without a word) keeps the role, and the change fails naming it. Read just
 * before the DELETE: the platform has no "delete if unheld".
 */
async function refuseUnendedGrants(
  platform: Platform,
  change: PlanChange,
  read: { tenant: string; signal: AbortSignal },
  ends: readonly string[] = [],
): Promise<number | undefined> {
  const known = new Set([...(change.fields.find((f) => f.field === 'grants')?.holders ?? []), ...ends]);
  const unended: string[] = [];
  let held = 0;
  try {
    for await (const a of platform.roles.listAllTenantAssignments({ role_id: change.id! }, read)) {
      held += 1;
      if (!known.has(a.user_id)) unended.push(`${a.user_id}, granted ${a.assigned_at} by ${a.assigned_by}`);
    }
  } catch (error) {
    if (error instanceof RoleNotFoundError) return undefined; // gone already: the DELETE says so
    throw error;
  }
  if (unended.length === 0) return held;
  const one = unended.length === 1;
  throw new SvcError(
    'conflict',
    `not deleted: it has ${unended.length} grant${one ? '' : 's'} the plan did not end (${unended.join('; ')}); nothing was removed; revoke ${one ? 'it' : 'them'} or plan again`,
    { code: 'role_still_granted' },
  );
}

/**
 * A role deletion's answer against the check before it (attack28b F3): the platform says how many
 * grants the delete ended (`revoked_assignments`, the sandbox's field), and more than the check
 * found (the ones the plan ends) means a grant made in between was ended without a word. The
 * delete is done, so the row fails saying so, its change made, with where to see whose grants.
 */
function endedAsChecked(
  role: { id: string; name?: string; deleted_at?: string | null },
  expected: number | undefined,
  svc: CommandLine,
): Record<string, unknown> {
  const revoked = (role as { revoked_assignments?: unknown }).revoked_assignments;
  const done = { id: role.id, deleted_at: role.deleted_at };
  if (expected === undefined || typeof revoked !== 'number' || revoked <= expected) return done;
  const more = revoked - expected;
  const grants = more === 1 ? '1 grant' : `${more} grants`;
  return {
    ...done,
    status: 'failed',
    error: {
      code: 'role_grants_ended',
      message: `deleted, but it ended ${grants} made after svc's last check (${revoked} ended, ${expected} planned): someone granted the role meanwhile; see whose in ${shownBy('audit ls', '--action', 'role.revoked', '--role', role.id)(svc)}, and grant what they need again`,
      made: true,
    },
  };
}

/**
 * A custom role the plan creates that exists by the time it is sent (409 role_name_taken): made
 * meanwhile, most likely by another run applying the same file at once. With exactly the planned
 * permissions it is the planned role (skipped, `created_by_another_run`, with its id), and the
 * grants planned for it go ahead against it; with other permissions granting it would hand out
 * what the plan did not show, so it fails naming the difference, and its grants are not made.
 * Told so by the retry of an attempt whose answer was lost, the planned role is most likely that
 * attempt's (made by this run: found_after_lost_answer, as a bulk grant's; review24f M1) unless
 * anything shows it is another's: the one rule, foundAfterLostAnswer (the refusal marked as the
 * attempt's own stored answer, the role made clearly before the step's start, `startMs` on this
 * machine's clock, judged on the platform's: attemptStart; review25a H1).
 */
async function roleMadeMeanwhile(
  platform: Platform,
  change: PlanChange,
  read: { tenant: string; signal: AbortSignal },
  error: RoleNameTakenError,
  startMs: number,
  svc: CommandLine,
): Promise<Record<string, unknown> | undefined> {
  const live = await liveRoleNamed(platform, change.name, read);
  if (live === undefined) return undefined; // deleted again since: the platform's answer stands
  const planned = (change.fields.find((f) => f.field === 'permissions')?.to ?? []) as string[];
  const { more, fewer } = permissionDifference(live.permissions, planned);
  if (more.length === 0 && fewer.length === 0) {
    const lost = foundAfterLostAnswer(error, {
      ...attemptStart(platform, startMs),
      check: shownBy('roles get', live.name)(svc),
      madeAt: live.created_at,
    });
    return lost === undefined
      ? { status: 'skipped', reason: 'created_by_another_run', id: live.id }
      : foundByRetry(lost, 'the creation', 'it made', { id: live.id });
  }
  const diff = [
    more.length > 0 ? `it also has ${more.join(', ')}` : '',
    fewer.length > 0 ? `it lacks ${fewer.join(', ')}` : '',
  ].filter(Boolean);
  throw new SvcError(
    'conflict',
    `role ${change.name} was created since the plan (${live.id}) with other permissions than planned (${diff.join('; ')}): nothing was granted with it; svc plan shows the difference`,
    { code: 'role_name_taken' },
  );
}

/**
 * A change its retry found done after the answer to its first attempt was lost (`lost`): most
 * likely that attempt's, so this run's (ok, counted with the run's other such items), as a bulk
 * grant says it (src/commands/roles/bulk-workers.ts).
 */
function foundByRetry(
  lost: string,
  act: string,
  found: string,
  details: Record<string, unknown>,
): Record<string, unknown> {
  return {
    reason: FOUND_AFTER_LOST_ANSWER,
    ...details,
    note: `the answer to ${act} was lost (${lost}) and its retry found ${found}: most likely by that attempt`,
  };
}

/**
 * A grant held already that the plan did not see: made since, by another run, unless it was
 * clearly made before the plan's time (a lagging read); within the anchor's second it is taken as
 * made since. A 409's grant, or one a 2xx answered with (attack26b F6).
 */
function inPlace(
  held: RoleAssignment | undefined,
  plannedAt: string,
  justification: string | null | undefined,
  note?: string,
): Record<string, unknown> {
  const before = held?.assigned_at === undefined || clearlyAfter(plannedAt, held.assigned_at);
  // The POST (with the file's justification) was answered with the grant in place: a justification
  // that grant does not carry was sent but is recorded nowhere (review29c M2: not "not sent").
  const unsent = justificationNotSent(
    justification,
    "the file's",
    true,
    held === undefined ? undefined : held.justification,
  );
  const notes = [note, unsent?.words].filter((w) => w !== undefined);
  return {
    status: 'skipped',
    reason: before ? 'already_assigned' : 'created_by_another_run',
    ...(held ? { expires_at: held.expires_at ?? null } : {}),
    audit_trail_id: held?.audit_trail_id,
    ...(notes.length ? { note: notes.join('; ') } : {}),
    ...unsent?.flag,
  };
}

/** Makes one change; returns its result's details (ids, audit trail ids, secret files). */
export function stepWorker(
  platform: Platform,
  secrets: () => SecretDir | undefined,
  run: {
    resumed: () => boolean;
    unsaved: (key: string, created: Unsaved) => void;
    /** The run's command lines in a tenant (by its slug), for the lines a row names. */
    svcIn: (tenant: string) => CommandLine;
    sleep: Sleep;
    /** The platform's time now (platformTime): what a grant held meanwhile is judged at. */
    now: () => number;
    /** This machine's time now: a step's start, judged on the platform's clock (attemptStart). */
    machineNow: () => number;
    /** The plan's anchor (its time on the platform's clock): a grant made after it was made meanwhile. */
    plannedAt: () => string;
    /** Who the caller is, for a grant's 2xx (grantAnswerNotMade): read at the run's start (apply.ts). */
    callers: CallerIds;
  },
) {
  const roleIds = new Map<string, Promise<Map<string, string>>>();
  const { callers } = run;
  /** A role's id by name, for grants of roles this run created (read once per tenant, after they exist). */
  const roleId = async (tenant: string, name: string, signal: AbortSignal): Promise<string> => {
    let ids = roleIds.get(tenant);
    if (!ids) {
      ids = (async () => {
        const map = new Map<string, string>();
        for await (const role of platform.roles.listAll({ limit: 200 }, { tenant, signal })) {
          if (!role.deleted_at) map.set(role.name, role.id);
        }
        return map;
      })();
      roleIds.set(tenant, ids);
    }
    const id = (await ids).get(name);
    if (id === undefined)
      throw new SvcError('not_found', `role ${name} does not exist in ${tenant}`, { code: 'not_found' });
    return id;
  };
  const gone = (reason: string) => ({ status: 'skipped', reason });
  const secretDir = (): SecretDir => {
    const dir = secrets();
    // apply checks for --secret-dir before anything is sent; this is a bug if it happens.
    if (!dir) throw new Error('a secret arrived without a --secret-dir');
    return dir;
  };

  return async ({ key, data }: BulkItem<Step>, call: WorkCall): Promise<Record<string, unknown>> => {
    const { tenant, change } = data;
    // Before anything of the step is sent: what its retry finds after a lost answer is judged by it.
    const startMs = run.machineNow();
    // The run this one resumes sent this grant and ended before its answer (its journal's mark):
    // found made now, it is most likely that run's, which only sending it again can tell (the
    // platform's stored answer, or its refusal judged from that run's start, as roles assign --file
    // does); `already_done` would say nothing changed (brief fixapply item 2).
    const cut =
      change.kind === 'grant' && change.action === 'create' ? sentStart(call.sentEarlier) : undefined;
    if (data.done && cut === undefined) return gone('already_done');
    if (data.expired !== undefined) return { ...gone('ended'), planned_expires_at: data.expired };
    const read = { tenant: tenant.id, signal: call.signal };
    // Every change carries the step's key: a resumed run, or a retry after a lost answer, is answered
    // from the platform's record (a DELETE retried without it would find its own work gone).
    const keyed = { ...read, idempotencyKey: call.idempotencyKey };
    // A stored answer's check (stored-grants.ts): how it came, and the read's tenant.
    const stored = (response: { afterLostAnswer: boolean }) => ({
      resumed: call.resumed,
      afterLostAnswer: response.afterLostAnswer,
      sleep: run.sleep,
      ...read,
    });
    const granted = (grant: { user: string; role: string }, id: string) => ({
      user: grant.user,
      role: { id, name: grant.role },
    });
    const created = () =>
      createWithSecret(platform, tenant, change, body(change), call, {
        resumed: run.resumed(),
        secrets: secretDir(),
        unsaved: (made) => run.unsaved(key, made),
        svc: run.svcIn(tenant.slug),
      });
    try {
      if (change.kind === 'role') {
        if (change.action === 'create') {
          const role = await platform.roles.create(body(change) as never, keyed);
          return { id: role.id };
        }
        if (change.action === 'update')
          return await updateRole(platform, change, read, run.svcIn(tenant.slug));
        const expected = await refuseUnendedGrants(platform, change, read, data.ends);
        const role = await platform.roles.delete(change.id!, keyed);
        return endedAsChecked(role, expected, run.svcIn(tenant.slug));
      }
      if (change.kind === 'grant') {
        // The caller's own grant of a role this run deleted (it waited for that): the deletion ended it.
        if (change.ended_by !== undefined) return gone('ended_with_role');
        const grant = change.grant!;
        const role = grant.role_id ?? (await roleId(tenant.id, grant.role, call.signal));
        if (change.action === 'create') {
          const sent = {
            role_id: role,
            ...(grant.expires_at === null ? {} : { expires_at: grant.expires_at }),
            ...(grant.justification === null ? {} : { justification: grant.justification }),
          };
          const { data: made, response } = await platform.roles
            .assign(grant.user, sent, keyed)
            .withResponse();
          // A 2xx carrying a grant this step clearly did not make (by someone else, or days before
          // the plan): in place already, as a 409 says it (attack26b F6; review26a H1).
          const other = await grantAnswerNotMade(
            {
              justification: grant.justification,
              held: made,
              startedAt: run.plannedAt(),
              refuse: (problem) => platform.roles.assignAnswerRefused(grant.user, sent, problem, response),
            },
            () => callers(call.signal),
          );
          if (other !== undefined)
            return inPlace(
              made,
              run.plannedAt(),
              grant.justification,
              `the server answered with a grant in place: ${other}`,
            );
          // The platform's record of a grant made earlier: done only while the user holds it. Sent
          // by the run this one resumes (its mark), it is marked replayed: the runner counts it
          // that run's, apart from this one's (BulkSummary.earlierRun). That run counted it made
          // when it got the answer and could not journal it (not_journaled), unknown when the answer
          // was lost, and not at all when it was killed: this run's count never holds it either way.
          if (response.replayed)
            return {
              ...(await checkStoredGrant(platform, granted(grant, role), made, stored(response))),
              audit_trail_id: made.audit_trail_id,
              ...(cut === undefined ? {} : call.replayed(response)),
            };
          const odd = oddGrantStatus(made.status);
          return {
            expires_at: made.expires_at,
            audit_trail_id: made.audit_trail_id,
            ...(odd ? { note: odd } : {}),
          };
        }
        if (change.action === 'update') {
          const check = shownBy('roles holders', grant.role)(run.svcIn(tenant.slug));
          if ((await refuseGrantMoved(platform, change, role, read, check)) === 'done')
            return madeMeanwhile(change);
          const moved = await platform.roles.updateAssignment(
            grant.user,
            role,
            { expires_at: grant.expires_at, justification: grant.justification ?? '' },
            read,
          );
          return { expires_at: moved.expires_at, audit_trail_id: moved.update_audit_trail_id ?? undefined };
        }
        const { data: revoked, response } = await platform.roles
          .revoke(grant.user, role, keyed)
          .withResponse();
        // The platform's record of a revocation made earlier: done only while it is not held again.
        if (response.replayed)
          await checkStoredRevocation(platform, granted(grant, role), revoked, stored(response));
        return { audit_trail_id: revoked.revocation_audit_trail_id ?? undefined };
      }
      if (change.kind === 'webhook') {
        if (change.action === 'create') return await created();
        if (change.action === 'update') {
          const check = shownBy('webhooks get', change.id!)(run.svcIn(tenant.slug));
          if ((await refuseIntegrationMoved(platform, change, read, check)) === 'done')
            return madeMeanwhile(change);
          await platform.webhooks.update(change.id!, body(change) as never, read);
          return { id: change.id };
        }
        await platform.webhooks.delete(change.id!, keyed);
        return { id: change.id };
      }
      if (change.action === 'create') return await created();
      if (change.action === 'update') {
        const check = shownBy('oauth get', change.id!)(run.svcIn(tenant.slug));
        if ((await refuseIntegrationMoved(platform, change, read, check)) === 'done')
          return madeMeanwhile(change);
        await platform.oauth.clients.update(change.id!, body(change) as never, read);
        return { id: change.id };
      }
      await platform.oauth.clients.delete(change.id!, keyed);
      return { id: change.id };
    } catch (error) {
      if (error instanceof RoleNameTakenError && change.kind === 'role' && change.action === 'create') {
        const made = await roleMadeMeanwhile(platform, change, read, error, startMs, run.svcIn(tenant.slug));
        if (made !== undefined) return made;
      }
      // The platform's own answer that it is so already: reported as skipped, never as done. The
      // grant held is judged as svc plan judges it (./held-expiry.ts): one another run of the file
      // made meanwhile, its `expires_in` counted from its own second, is as planned (attack21 F2).
      if (error instanceof AssignmentExistsError && change.action === 'create' && change.grant) {
        const held = error.assignment;
        const as = held
          ? holdsAsPlanned(change.grant, held.expires_at ?? null, run.now())
          : change.grant.expires_at === null;
        // Told it exists by the retry of an attempt whose answer was lost: most likely made by it,
        // unless the refusal is that attempt's own, or the grant held is not the one it sent.
        const lost = as
          ? foundAfterLostAnswer(error, {
              ...(cut ?? attemptStart(platform, startMs)),
              check: shownBy('roles holders', change.grant.role)(run.svcIn(tenant.slug)),
              grant: { justification: change.grant.justification, expiresAt: change.grant.expires_at, held },
            })
          : undefined;
        if (lost !== undefined) {
          return foundByRetry(lost, 'the grant', 'it made', {
            ...(held ? { expires_at: held.expires_at ?? null } : {}),
            audit_trail_id: held?.audit_trail_id,
          });
        }
        if (as) return inPlace(held, run.plannedAt(), change.grant.justification);
      }
      if (change.action === 'delete') {
        if (error instanceof AssignmentNotFoundError) return gone('not_assigned');
        if (error instanceof WebhookNotFoundError || error instanceof OAuthClientNotFoundError)
          return gone('already_removed');
        // A role deleted already (by a concurrent run, or by hand) answers 409 role_deleted, not 404.
        if (
          (error instanceof RoleNotFoundError || error instanceof RoleDeletedError) &&
          change.kind === 'role'
        ) {
          // After a lost answer, most likely deleted by that attempt, unless the refusal is that
          // attempt's own stored answer (a 404 is GoneAfterLostAnswerError).
          const lost = foundAfterLostAnswer(error);
          return lost === undefined
            ? gone('already_removed')
            : foundByRetry(lost, 'the delete', 'the role deleted', {});
        }
      }
      throw error;
    }
  };
}
