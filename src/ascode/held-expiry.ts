import { type Expiry, parseDuration } from '../api/expiry.js';
import { isoSeconds, serverTime } from '../api/time.js';
import type { GrantTarget } from './plan.js';

/**
 * How `svc plan` judges the expiry of a grant the user holds against the entry's (README,
 * "Expiries"): the verb of the change it plans, or undefined when it leaves the grant alone. An
 * `expires_at` is that end exactly (sooner or later is moved to it); `expires_in` is how long a
 * new grant lasts, so one that already ends within it (by `wanted`, the span counted from the
 * plan's time) is left alone, and one ending later, or never, is shortened; neither is permanent.
 * The one rule: the plan (./diff.ts), a run that finds the grant made meanwhile (./steps.ts) and a
 * resumed run that finds it made since (./drift.ts) all judge with it.
 */
export function expiryVerb(
  kind: Expiry['kind'],
  held: string | null,
  wanted: string | null,
): 'extend' | 'shorten' | undefined {
  if (kind === 'never') return held === null ? undefined : 'extend';
  if (held === null || serverTime(held) > serverTime(wanted!)) return 'shorten';
  if (kind === 'at' && serverTime(held) < serverTime(wanted!)) return 'extend';
  return undefined;
}

/**
 * Whether the grant held now (its `expires_at`, `held`) is as the planned `grant` wants it, as
 * `svc plan` would judge it at `nowMs` (the platform's time). An `expires_in` grant counts its
 * span from now, not from the plan's time: two runs of one file (two CI runners), or a run and a
 * `roles assign --expires-in` of the same span, each count from their own second, and the grant
 * the other made first ends within the span of now, as a plan made now would leave it (attack21
 * F2). A plan written before svc recorded `expires_in` is judged by its `expires_at` alone.
 */
export function holdsAsPlanned(
  grant: Pick<GrantTarget, 'expires_at' | 'expires_in'>,
  held: string | null,
  nowMs: number,
): boolean {
  const span = grant.expires_in === undefined ? undefined : parseDuration(grant.expires_in);
  if (span?.ok && span.value.kind === 'in')
    return expiryVerb('in', held, isoSeconds(nowMs + span.value.ms)) === undefined;
  return expiryVerb(grant.expires_at === null ? 'never' : 'at', held, grant.expires_at) === undefined;
}
