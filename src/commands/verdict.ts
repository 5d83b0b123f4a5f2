import { spreadAsTheyCame } from '../api/numbers-as-they-came.js';

/**
 * The noun under which a verdict carries its object: `record`, `role`, `webhook`, `client` (OAuth),
 * `api_key` (not `key`: that is the bearer secret of a created key), `assignment` (a role held),
 * `profile` (a profile's name), `credential` (a profile's stored credential, which logout removes:
 * the profile stays).
 */
export type VerdictNoun =
  | 'record'
  | 'role'
  | 'webhook'
  | 'client'
  | 'api_key'
  | 'assignment'
  | 'profile'
  | 'credential';

/** svc's word for what became of the object: done now, gone already, or done as an answer said. */
export type Outcome =
  | 'deleted'
  | 'revoked'
  | 'removed'
  // logout: the profile's credential removed (its session revoked where the server offers it); the profile stays.
  | 'logged_out'
  | 'already_deleted'
  | 'already_revoked'
  // tenants api-keys revoke: revoked, by the revoker the answer names or by this command, svc cannot tell which.
  | 'revoked_by_either'
  | 'nothing_to_remove'
  | 'gone_after_lost_answer'
  | 'answered_without_body'
  | 'answered_without_record';

/**
 * svc's verdict about the one object a verb deleted, revoked or removed, as --json prints it: one
 * shape for every such verb (attack26a F6), so a script reads `.outcome` and the object the same
 * way whatever the noun. The verdict and the object sit side by side, never mixed: `outcome`, and
 * under its noun (`"record": {…}`) the API's object, fields unchanged, as the platform's answer to
 * the change gave it, or as svc read it when it was gone already (`already_…`). It is null when no
 * answer says what the thing is now (an answer lost, or one without the object): never the object
 * as read before the change, whose fields would say it is still there. A record's fields are the
 * user's (one may be named `outcome`), so svc's word can never go among them. `also` is what a verb
 * printed at the top before this shape was one (a key's or a role's fields, a delete answer's
 * `deleted_at`, profiles rm's `removed`): kept for the scripts that read them, never in the place
 * of `outcome` or of the noun (README "Output").
 */
export function verdict(
  outcome: Outcome,
  noun: VerdictNoun,
  object: unknown,
  also: Record<string, unknown> = {},
): Record<string, unknown> {
  // The fields at the top keep their numbers' text, as the object under its noun does (fixnum2).
  return spreadAsTheyCame(also, { outcome, [noun]: object ?? null });
}
